/**
 * Groups live messages so the page applies them about once a frame: a burst (a controller
 * rewriting hundreds of objects) then costs one cache write per collection and one render a frame
 * instead of one per event, each of which copied the collection and re-rendered. A message after
 * a quiet frame is applied at once, so a single change is not held back a frame (or a task: on a
 * busy page a timer's turn can come after a render's worth of other work). Timers are passed in (the browser's
 * by default), so the schedule is testable.
 */
import type { LiveMessage } from "@/lib/api/resources";

/** About one frame at 60 Hz. */
export const FRAME_MS = 16;
/** Where no frame comes (a hidden tab), queued messages are applied after this at the latest. */
export const HIDDEN_FLUSH_MS = 250;

export interface BatchClock {
  now: () => number;
  requestFrame: (fn: () => void) => number;
  cancelFrame: (id: number) => void;
  setTimer: (fn: () => void, ms: number) => ReturnType<typeof setTimeout>;
  clearTimer: (id: ReturnType<typeof setTimeout> | undefined) => void;
}

const browserClock = (): BatchClock => ({
  now: () => performance.now(),
  requestFrame: (fn) => requestAnimationFrame(fn),
  cancelFrame: (id) => cancelAnimationFrame(id),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (id) => clearTimeout(id),
});

export interface LiveBatcher {
  /** Queues a message; `apply` gets it with the rest of its batch. */
  push: (msg: LiveMessage) => void;
  /** Drops what is queued and cancels the pending flush. */
  stop: () => void;
}

/** Calls `apply` with each batch: messages by collection, in arrival order. */
export function liveBatcher(
  apply: (batch: ReadonlyMap<string, LiveMessage[]>) => void,
  clock: BatchClock = browserClock(),
): LiveBatcher {
  let pending = new Map<string, LiveMessage[]>();
  let frame: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let scheduled = false;
  let flushedAt = -Infinity;
  const cancel = () => {
    if (frame !== undefined) clock.cancelFrame(frame);
    clock.clearTimer(timer);
    frame = timer = undefined;
    scheduled = false;
  };
  const flush = () => {
    cancel();
    flushedAt = clock.now();
    const batch = pending;
    pending = new Map();
    if (batch.size > 0) apply(batch);
  };
  return {
    push(msg) {
      const queued = pending.get(msg.collection);
      if (queued) queued.push(msg);
      else pending.set(msg.collection, [msg]);
      if (scheduled) return;
      if (clock.now() - flushedAt >= FRAME_MS) return flush();
      scheduled = true;
      frame = clock.requestFrame(flush);
      timer = clock.setTimer(flush, HIDDEN_FLUSH_MS);
    },
    stop() {
      cancel();
      pending = new Map();
    },
  };
}
