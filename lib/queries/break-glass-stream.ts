/**
 * Follows the break-glass event stream (/api/break-glass/stream): calls `onChange` on each
 * `break-glass` event and on each (re)connection — an episode may have started or ended while
 * the stream was down — so the banner reads the list again then and only then: no polling.
 * Keeps the stream open: a connection the browser gave up on (answered with an error) is opened
 * again after a growing pause, and one silent past the heartbeat's bounds is taken for dead and
 * replaced (stream-silence.ts).
 */
import { BREAK_GLASS_EVENT } from "@/lib/api/break-glass";
import { HEARTBEAT_EVENT } from "@/lib/api/streams";
import { askAgainAfterMs } from "./no-answer";
import { silenceTimer } from "./stream-silence";

/** What is used of the browser's EventSource. */
export interface EventSourceLike {
  readonly readyState: number;
  onopen: ((ev: Event) => unknown) | null;
  onerror: ((ev: Event) => unknown) | null;
  addEventListener(type: string, listener: (ev: MessageEvent<string>) => void): void;
  close(): void;
}

/** EventSource.CLOSED. */
const CLOSED = 2;

interface BreakGlassStreamOptions {
  /** Opens a new connection (the browser's `new EventSource(url)`). */
  open: () => EventSourceLike;
  /** The episodes may have changed: read them again. */
  onChange: () => void;
  /** Whether the stream is connected, for an indicator. */
  onState?: (connected: boolean) => void;
  /** The timers (tests pass their own). */
  timers?: {
    set: (fn: () => void, ms: number) => ReturnType<typeof setTimeout>;
    clear: (t: ReturnType<typeof setTimeout> | undefined) => void;
  };
  /** How long a stream may stay silent (stream-silence.ts's default when absent). */
  silenceMs?: number;
}

/** Opens the stream and keeps it open; returns the function that stops following it. */
export function followBreakGlass(opts: BreakGlassStreamOptions): () => void {
  const timers = opts.timers ?? {
    set: (fn: () => void, ms: number) => setTimeout(fn, ms),
    clear: (t: ReturnType<typeof setTimeout> | undefined) => clearTimeout(t),
  };
  let stopped = false;
  let source: EventSourceLike | undefined;
  let reopen: ReturnType<typeof setTimeout> | undefined;
  let silence: ReturnType<typeof silenceTimer> | undefined;
  let refused = 0;
  const connect = () => {
    if (stopped) return;
    const s = opts.open();
    source = s;
    const quiet = silenceTimer(
      () => {
        s.close();
        opts.onState?.(false);
        connect();
      },
      opts.silenceMs,
      timers,
    );
    silence = quiet;
    s.addEventListener(HEARTBEAT_EVENT, () => quiet.heard());
    s.addEventListener(BREAK_GLASS_EVENT, () => {
      quiet.heard();
      opts.onChange();
    });
    s.onopen = () => {
      quiet.heard();
      refused = 0;
      opts.onState?.(true);
      opts.onChange();
    };
    s.onerror = () => {
      opts.onState?.(false);
      // The browser reconnects by itself after a dropped connection (onopen then reads the
      // list again), but gives up for good when a reconnection is answered with an error:
      // open it again after a growing pause.
      if (s.readyState !== CLOSED) return;
      quiet.stop();
      s.close();
      reopen = timers.set(connect, askAgainAfterMs(++refused));
    };
  };
  connect();
  return () => {
    stopped = true;
    timers.clear(reopen);
    silence?.stop();
    source?.close();
  };
}
