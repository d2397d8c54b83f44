/**
 * Telling a dead event stream from a quiet one. The dashboard's event streams send a `ping` event
 * every STREAM_HEARTBEAT_MS; a connection on which nothing (not even a ping) arrives for
 * STREAM_SILENCE_MS is taken for dead and opened again. The browser's EventSource cannot notice by
 * itself: a connection that died without closing (a laptop that slept, a proxy or load balancer
 * that dropped it, a dashboard process that hangs) stays open, silent, for good — and the page
 * would go on saying "live" over what it last saw. (Comment lines never reach the page, so the
 * heartbeat is an event.)
 */

import { STREAM_HEARTBEAT_MS } from "@/lib/api/streams";

/** A stream silent this long (three heartbeats) is taken for a dead connection. */
const STREAM_SILENCE_MS = 3 * STREAM_HEARTBEAT_MS;

/**
 * Calls `onSilent` once STREAM_SILENCE_MS pass without `heard()` being called (it is armed at
 * once: a connection that never answers counts as silent too). `stop()` disarms it.
 */
export function silenceTimer(
  onSilent: () => void,
  ms: number = STREAM_SILENCE_MS,
  timers: {
    set: (fn: () => void, ms: number) => ReturnType<typeof setTimeout>;
    clear: (t: ReturnType<typeof setTimeout> | undefined) => void;
  } = { set: (fn, t) => setTimeout(fn, t), clear: (t) => clearTimeout(t) },
): { heard: () => void; stop: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const heard = () => {
    if (stopped) return;
    timers.clear(timer);
    timer = timers.set(() => {
      if (stopped) return;
      stopped = true;
      onSilent();
    }, ms);
  };
  heard();
  return {
    heard,
    stop: () => {
      stopped = true;
      timers.clear(timer);
    },
  };
}
