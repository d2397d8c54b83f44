import { describe, expect, it } from "vitest";
import {
  shareAcrossTabs,
  type ChannelLike,
  type LocksLike,
  type StreamHandlers,
  type TabMessage,
} from "./share-across-tabs";
import { fakeChannels as fakeChannelsOf, fakeLocks, settle } from "./fake-tabs";

const fakeChannels = () => fakeChannelsOf<TabMessage>();

/** Streams opened through `follow`, each with the handlers it was given. */
function streams() {
  const all: Array<{ handlers: StreamHandlers; stopped: boolean }> = [];
  return {
    all,
    /** The n-th stream opened. */
    nth: (n: number) => {
      const s = all[n];
      if (!s) throw new Error(`no stream ${n} (${all.length} opened)`);
      return s;
    },
    open: () => all.filter((s) => !s.stopped),
    follow: (handlers: StreamHandlers) => {
      const s = { handlers, stopped: false };
      all.push(s);
      return () => {
        s.stopped = true;
      };
    },
  };
}

/** A tab: what its banner was told. */
function tab(
  s: ReturnType<typeof streams>,
  sharing: { locks?: LocksLike; openChannel?: (name: string) => ChannelLike },
  name = "portcullis:break-glass-stream:ctx",
) {
  const t = { changes: 0, states: [] as boolean[], stop: () => undefined as void };
  t.stop = shareAcrossTabs({
    name,
    ...sharing,
    follow: s.follow,
    onChange: () => void t.changes++,
    onState: (c) => void t.states.push(c),
  });
  return t;
}

describe("shareAcrossTabs", () => {
  it("opens one stream for N tabs, and every tab hears its changes and state", async () => {
    const s = streams();
    const sharing = { locks: fakeLocks(), openChannel: fakeChannels() };
    const tabs = [tab(s, sharing), tab(s, sharing), tab(s, sharing), tab(s, sharing)];
    await settle();
    expect(s.all).toHaveLength(1);

    // The connection opens: every tab is told it is connected and reads the list once.
    s.nth(0).handlers.onState(true);
    s.nth(0).handlers.onChange();
    await settle();
    for (const t of tabs) {
      expect(t.states.at(-1)).toBe(true);
    }
    const afterOpen = tabs.map((t) => t.changes);
    for (const c of afterOpen) expect(c).toBeGreaterThanOrEqual(1);

    // A break-glass event: each tab reads again, once.
    s.nth(0).handlers.onChange();
    await settle();
    expect(tabs.map((t) => t.changes)).toEqual(afterOpen.map((c) => c + 1));

    s.nth(0).handlers.onState(false);
    await settle();
    for (const t of tabs) expect(t.states.at(-1)).toBe(false);
    expect(s.all).toHaveLength(1);
  });

  it("a tab joining later reads once and learns whether the stream is connected", async () => {
    const s = streams();
    const sharing = { locks: fakeLocks(), openChannel: fakeChannels() };
    tab(s, sharing);
    await settle();
    s.nth(0).handlers.onState(true);
    s.nth(0).handlers.onChange();
    await settle();

    const late = tab(s, sharing);
    await settle();
    expect(late.states).toEqual([true]);
    expect(late.changes).toBe(1);
    expect(s.all).toHaveLength(1);
  });

  it("when the holder stops, the next tab opens the stream and every tab reads on its opening", async () => {
    const s = streams();
    const sharing = { locks: fakeLocks(), openChannel: fakeChannels() };
    const first = tab(s, sharing);
    const second = tab(s, sharing);
    const third = tab(s, sharing);
    await settle();
    s.nth(0).handlers.onState(true);
    await settle();

    first.stop();
    await settle();
    expect(s.nth(0).stopped).toBe(true);
    expect(s.open()).toHaveLength(1);
    expect(s.all).toHaveLength(2);
    // Not connected between the two holders' streams.
    for (const t of [second, third]) expect(t.states.at(-1)).toBe(false);

    const before = [second.changes, third.changes];
    s.nth(1).handlers.onState(true);
    s.nth(1).handlers.onChange();
    await settle();
    for (const t of [second, third]) expect(t.states.at(-1)).toBe(true);
    expect([second.changes, third.changes]).toEqual(before.map((c) => c + 1));
    // The stopped tab hears nothing more.
    expect(first.states.at(-1)).toBe(true);

    // A waiting tab that stops before its turn never opens one.
    third.stop();
    second.stop();
    await settle();
    expect(s.open()).toHaveLength(0);
    expect(s.all).toHaveLength(2);
  });

  it("keeps one stream per name: another kube context has its own", async () => {
    const s = streams();
    const sharing = { locks: fakeLocks(), openChannel: fakeChannels() };
    const a = tab(s, sharing, "bg:a");
    const b = tab(s, sharing, "bg:b");
    await settle();
    expect(s.all).toHaveLength(2);
    s.nth(0).handlers.onChange();
    await settle();
    expect(a.changes).toBe(1);
    expect(b.changes).toBe(0);
  });

  it("without Web Locks or BroadcastChannel each tab follows its own stream", async () => {
    const s = streams();
    const t1 = tab(s, {});
    const t2 = tab(s, { openChannel: fakeChannels() });
    const t3 = tab(s, { locks: fakeLocks() });
    await settle();
    expect(s.all).toHaveLength(3);
    s.nth(1).handlers.onState(true);
    s.nth(1).handlers.onChange();
    expect(t2.states).toEqual([true]);
    expect(t2.changes).toBe(1);
    expect(t1.changes + t3.changes).toBe(0);
    t1.stop();
    expect(s.nth(0).stopped).toBe(true);
  });
});
