import { describe, expect, it } from "vitest";
import { fakeChannels, fakeLocks, settle } from "./fake-tabs";
import { holdStreamSlot, type SlotMessage, type SlotState } from "./stream-slots";

/** One browser profile: its locks and channels, and tabs whose visibility the test sets. */
function profile(slots = 2) {
  const locks = fakeLocks();
  const openChannel = fakeChannels<SlotMessage>();
  const stream = (hiddenAtStart = false) => {
    const listeners = new Set<() => void>();
    const s = {
      hidden: hiddenAtStart,
      states: [] as SlotState[],
      get state() {
        return s.states.at(-1);
      },
      setHidden(h: boolean) {
        s.hidden = h;
        for (const l of listeners) l();
      },
      stop: () => undefined as void,
    };
    s.stop = holdStreamSlot({
      slots,
      locks,
      openChannel,
      visibility: {
        hidden: () => s.hidden,
        subscribe: (changed) => {
          listeners.add(changed);
          return () => listeners.delete(changed);
        },
      },
      onState: (st) => void s.states.push(st),
    });
    return s;
  };
  return { locks, stream };
}

describe("holdStreamSlot", () => {
  it("opens as many streams as there are slots; the others wait and take a slot as one frees", async () => {
    const p = profile(2);
    const [a, b, c, d] = [p.stream(), p.stream(), p.stream(), p.stream()];
    await settle();
    expect([a.state, b.state, c.state, d.state]).toEqual(["held", "held", "waiting", "waiting"]);
    expect(p.locks.held.size).toBe(2);

    a.stop();
    await settle();
    expect([b.state, c.state, d.state]).toEqual(["held", "held", "waiting"]);
    expect(p.locks.held.size).toBe(2);

    // A waiting stream that stops never takes one; the last waiting one then does.
    d.stop();
    b.stop();
    await settle();
    expect(c.state).toBe("held");
    expect(d.states).toEqual(["waiting"]);
    expect(p.locks.held.size).toBe(1);
    c.stop();
    await settle();
    expect(p.locks.held.size).toBe(0);
  });

  it("a waiting stream granted two slots at once keeps one and gives the other back", async () => {
    const p = profile(2);
    const [a, b] = [p.stream(), p.stream()];
    await settle();
    const c = p.stream();
    await settle();
    expect(c.state).toBe("waiting");
    a.stop();
    b.stop();
    await settle();
    expect(c.states).toEqual(["waiting", "held"]);
    expect(p.locks.held.size).toBe(1);
    const d = p.stream();
    await settle();
    expect(d.state).toBe("held");
  });

  it("a hidden tab gives its slot to a tab that waits, and asks again when shown", async () => {
    const p = profile(1);
    const back = p.stream();
    await settle();
    expect(back.state).toBe("held");
    back.setHidden(true);
    await settle();
    // Hidden with nobody waiting: it keeps the slot.
    expect(back.state).toBe("held");

    const front = p.stream();
    await settle();
    expect(front.state).toBe("held");
    expect(back.state).toBe("background");
    expect(front.states).toEqual(["waiting", "held"]);

    // Shown again: it waits, and the tab in front (not hidden) keeps its slot.
    back.setHidden(false);
    await settle();
    expect(back.state).toBe("waiting");
    expect(front.state).toBe("held");
    // The other tab goes to the background: it gives the slot up to the one waiting.
    front.setHidden(true);
    await settle();
    expect(front.state).toBe("background");
    expect(back.state).toBe("held");
    expect(p.locks.held.size).toBe(1);
  });

  it("tabs in front never give a slot up", async () => {
    const p = profile(1);
    const a = p.stream();
    await settle();
    const b = p.stream();
    await settle();
    expect([a.state, b.state]).toEqual(["held", "waiting"]);
    b.setHidden(true);
    b.setHidden(false);
    await settle();
    expect([a.state, b.state]).toEqual(["held", "waiting"]);
  });

  it("a slot granted to a hidden tab goes on to a tab in front that waits", async () => {
    const p = profile(1);
    const holder = p.stream();
    await settle();
    const hiddenWaiter = p.stream(true);
    await settle();
    const front = p.stream();
    await settle();
    expect([holder.state, hiddenWaiter.state, front.state]).toEqual(["held", "waiting", "waiting"]);
    holder.stop();
    await settle();
    expect(hiddenWaiter.state).toBe("background");
    expect(front.state).toBe("held");
    expect(p.locks.held.size).toBe(1);
  });

  it("a stream stopped while it waits leaves no request behind", async () => {
    const p = profile(1);
    const a = p.stream();
    const b = p.stream();
    await settle();
    b.stop();
    a.stop();
    await settle();
    expect(p.locks.held.size).toBe(0);
    expect(b.states).toEqual(["waiting"]);
    const c = p.stream();
    await settle();
    expect(c.state).toBe("held");
  });

  it("without Web Locks or BroadcastChannel the stream opens at once", () => {
    const states: SlotState[] = [];
    const stop = holdStreamSlot({ onState: (s) => void states.push(s), locks: fakeLocks() });
    expect(states).toEqual(["held"]);
    stop();
  });
});
