import { describe, expect, it } from "vitest";
import { silenceTimer } from "./stream-silence";

/** Timers under the test's hand: `advance(ms)` runs what falls due. */
function fakeTimers() {
  let now = 0;
  let next = 1;
  const due = new Map<number, { at: number; fn: () => void }>();
  return {
    set: (fn: () => void, ms: number) => {
      const id = next++;
      due.set(id, { at: now + ms, fn });
      return id as unknown as ReturnType<typeof setTimeout>;
    },
    clear: (t: ReturnType<typeof setTimeout> | undefined) => {
      due.delete(t as unknown as number);
    },
    advance(ms: number) {
      now += ms;
      for (const [id, t] of [...due]) {
        if (t.at > now) continue;
        due.delete(id);
        t.fn();
      }
    },
  };
}

describe("silenceTimer", () => {
  it("fires once when nothing is heard for the whole period, armed from the start", () => {
    const timers = fakeTimers();
    let silent = 0;
    silenceTimer(() => silent++, 45_000, timers);
    timers.advance(44_999);
    expect(silent).toBe(0);
    timers.advance(1);
    expect(silent).toBe(1);
    timers.advance(200_000);
    expect(silent).toBe(1);
  });

  it("waits the whole period again after each heartbeat or message", () => {
    const timers = fakeTimers();
    let silent = 0;
    const t = silenceTimer(() => silent++, 45_000, timers);
    for (let i = 0; i < 10; i++) {
      timers.advance(15_000);
      t.heard();
    }
    expect(silent).toBe(0);
    timers.advance(45_000);
    expect(silent).toBe(1);
    // Heard after it fired: the stream it watched has been replaced; nothing is armed again.
    t.heard();
    timers.advance(100_000);
    expect(silent).toBe(1);
  });

  it("never fires once stopped", () => {
    const timers = fakeTimers();
    let silent = 0;
    const t = silenceTimer(() => silent++, 45_000, timers);
    timers.advance(30_000);
    t.stop();
    t.heard();
    timers.advance(100_000);
    expect(silent).toBe(0);
  });
});
