import { describe, expect, it } from "vitest";
import { EpisodeTimers, type TimerClock } from "./timers";

/** A clock the test moves: `advance` runs what became due, in time order. */
function manualClock(start = 0) {
  let now = start;
  let seq = 0;
  const pending = new Map<number, { at: number; fn: () => void }>();
  const clock: TimerClock = {
    now: () => now,
    after(ms, fn) {
      const id = seq++;
      pending.set(id, { at: now + ms, fn });
      return () => pending.delete(id);
    },
  };
  return {
    clock,
    set(t: number) {
      now = t;
    },
    /** Wakes every timer due by `now` (as a wake-up at that moment would). */
    wake() {
      for (const [id, p] of [...pending].sort((a, b) => a[1].at - b[1].at)) {
        if (p.at > now) continue;
        pending.delete(id);
        p.fn();
      }
    },
    /** Wakes every timer whatever its time: a wake-up that comes early. */
    wakeAll() {
      for (const [id, p] of [...pending]) {
        pending.delete(id);
        p.fn();
      }
    },
    advance(ms: number) {
      now += ms;
      this.wake();
    },
    get pending() {
      return pending.size;
    },
  };
}

describe("EpisodeTimers", () => {
  it("fires once, at its time, not before", () => {
    const m = manualClock(1000);
    const t = new EpisodeTimers(m.clock);
    const fired: number[] = [];
    t.schedule("e", 5000, () => fired.push(m.clock.now()));
    m.advance(3999);
    expect(fired).toEqual([]);
    m.advance(1);
    expect(fired).toEqual([5000]);
    m.advance(10_000);
    expect(fired).toEqual([5000]);
    expect(t.has("e")).toBe(false);
  });

  it("goes back to sleep when woken early", () => {
    const m = manualClock(0);
    const t = new EpisodeTimers(m.clock);
    const fired: number[] = [];
    t.schedule("e", 100, () => fired.push(m.clock.now()));
    m.set(40);
    m.wakeAll();
    expect(fired).toEqual([]);
    expect(m.pending).toBe(1);
    m.advance(60);
    expect(fired).toEqual([100]);
  });

  it("fires an overdue episode at once, and a rescheduled one only at its new time", () => {
    const m = manualClock(500);
    const t = new EpisodeTimers(m.clock);
    const fired: string[] = [];
    t.schedule("late", 100, (id) => fired.push(id));
    t.schedule("x", 600, (id) => fired.push(id));
    t.schedule("x", 900, (id) => fired.push(id));
    m.wake();
    expect(fired).toEqual(["late"]);
    m.advance(100);
    expect(fired).toEqual(["late"]);
    m.advance(300);
    expect(fired).toEqual(["late", "x"]);
    t.schedule("y", 1000, (id) => fired.push(id));
    t.cancel("y");
    m.advance(1000);
    expect(fired).toEqual(["late", "x"]);
  });

  it("waits in steps longer than setTimeout allows", () => {
    const m = manualClock(0);
    const t = new EpisodeTimers(m.clock);
    const fired: number[] = [];
    const far = 2 ** 31 + 5000;
    t.schedule("far", far, () => fired.push(m.clock.now()));
    m.advance(2 ** 31 - 1);
    expect(fired).toEqual([]);
    m.advance(5001);
    expect(fired).toEqual([far]);
  });
});
