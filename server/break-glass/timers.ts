/**
 * One timer per break-glass episode, on the project's clock (lib/clock.ts) so unit tests move
 * time by hand. A timer never fires before its time — a wake-up that comes early (a clock
 * adjusted, a host that slept) is put back to sleep for the rest — and fires at most once per
 * scheduling: scheduling an id again replaces its timer.
 */
import type { Clock } from "@/lib/clock";

/** A clock that can also wake us: the wall clock's setTimeout, or a test's. */
export interface TimerClock extends Clock {
  /** Calls `fn` after about `ms`; returns the cancel function. */
  after(ms: number, fn: () => void): () => void;
}

/** Longest single wait (setTimeout's limit is 2^31-1 ms); longer ones wait again. */
const MAX_WAIT_MS = 2 ** 31 - 1;

export const systemTimerClock: TimerClock = {
  now: () => Date.now(),
  after(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref();
    return () => clearTimeout(t);
  },
};

export class EpisodeTimers {
  private readonly timers = new Map<string, { at: number; cancel: () => void }>();

  constructor(private readonly clock: TimerClock) {}

  /** Calls `fire(id)` once, at `at` or just after; replaces an earlier schedule of `id`. */
  schedule(id: string, at: number, fire: (id: string) => void): void {
    this.cancel(id);
    const wait = () => {
      const left = at - this.clock.now();
      if (left > 0) {
        const cancel = this.clock.after(Math.min(left, MAX_WAIT_MS), wait);
        this.timers.set(id, { at, cancel });
        return;
      }
      this.timers.delete(id);
      fire(id);
    };
    const cancel = this.clock.after(
      Math.min(Math.max(0, at - this.clock.now()), MAX_WAIT_MS),
      wait,
    );
    this.timers.set(id, { at, cancel });
  }

  has(id: string): boolean {
    return this.timers.has(id);
  }

  cancel(id: string): void {
    this.timers.get(id)?.cancel();
    this.timers.delete(id);
  }
}
