import "server-only";
import { HEARTBEAT_TEXT, STREAM_HEARTBEAT_MS } from "@/lib/api/streams";
import { endOnShutdown } from "@/server/http/shutdown";
import { endWithSession } from "@/server/auth/session-streams";
import { KubeApiError } from "@/lib/k8s/errors";
import { dashboardError } from "@/lib/api/contract";

/** Open event streams one context may hold (every tab holds one or two). */
const MAX_STREAMS_PER_CONTEXT = 32;
/**
 * Bytes a stream may have queued for a client that does not read (PORTCULLIS_STREAM_MAX_QUEUED_BYTES
 * changes it). Past it the client is dropped; its EventSource reconnects and starts again from a
 * SYNC snapshot (a resync).
 */
const MAX_QUEUED_BYTES =
  Number(process.env["PORTCULLIS_STREAM_MAX_QUEUED_BYTES"]) > 0
    ? Number(process.env["PORTCULLIS_STREAM_MAX_QUEUED_BYTES"])
    : 8 * 1024 * 1024;

// On globalThis: each route is bundled apart, and /api/health must see the streams /api/watch holds.
const globalForStreams = globalThis as typeof globalThis & {
  portcullisOpenStreams?: Map<string, number>;
};
const open = (globalForStreams.portcullisOpenStreams ??= new Map<string, number>());

/** Event streams open now, over every context (reported by /api/health). */
export function openStreams(): number {
  let n = 0;
  for (const v of open.values()) n += v;
  return n;
}

/** What a stream's producer writes with; everything written after the end is dropped. */
export interface EventStreamWriter {
  /** Writes SSE text as is (one or more whole messages). */
  write(text: string): void;
  /** Writes one message: `event:` when named, `id:` when given, its data as JSON. */
  send(event: string | undefined, data: unknown, id?: number | string): void;
  /**
   * True when the client has more queued than the stream allows: it is not reading. The producer
   * decides what it is told before the stream ends (a resync, or nothing: its EventSource
   * reconnects and starts again).
   */
  behind(): boolean;
  /** Ends the stream (what is queued still drains). Idempotent. */
  end(): void;
  /** True once the stream has ended. */
  readonly ended: boolean;
}

export interface EventStreamOptions {
  /** Whose stream slots it takes (claimStreamSlot: the context's, or the session's). */
  owner: string;
  /** The request whose abort ends the stream. */
  signal: AbortSignal;
  /** The browser's reconnection delay, sent first. */
  retryMs: number;
  /** The comment sent after it (": connected …"). */
  greeting?: string;
  /** Shared mode: the session whose end (sign-out, expiry, revocation) ends the stream. */
  session?: string;
  /** What the stream says when that session ends, before ending; default: nothing. */
  onSessionEnd?: (w: EventStreamWriter) => void;
  /**
   * Starts the producer. Its return value (a cleanup) runs once when the stream ends, however
   * it ends (the client gone, a shutdown, the session's end, `end()`).
   */
  start: (w: EventStreamWriter) => (() => void) | void;
}

/**
 * A Server-Sent Events response, the one way every event stream of the dashboard is served: a
 * stream slot (429 past the owner's cap, thrown before any byte), a heartbeat every
 * STREAM_HEARTBEAT_MS (lib/queries/stream-silence.ts), the end on the server's shutdown, on the
 * session's end and on the client's going away, and a bounded queue for a client that does not
 * read (`behind()`).
 */
export function openEventStream(opts: EventStreamOptions): Response {
  const release = claimStreamSlot(opts.owner);
  const encoder = new TextEncoder();
  let ended = false;
  const cleanups: Array<() => void> = [];
  const finish = () => {
    if (ended) return false;
    ended = true;
    for (const c of cleanups.splice(0)) {
      try {
        c();
      } catch {
        // one cleanup failing does not keep the others from running
      }
    }
    release();
    return true;
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const end = () => {
          if (!finish()) return;
          try {
            controller.close();
          } catch {
            // already closed by the client
          }
        };
        const write = (text: string) => {
          if (ended) return;
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            end();
          }
        };
        const w: EventStreamWriter = {
          write,
          send: (event, data, id) =>
            write(
              `${id === undefined ? "" : `id: ${id}\n`}${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`,
            ),
          behind: () => (controller.desiredSize ?? 0) < 0,
          end,
          get ended() {
            return ended;
          },
        };
        const heartbeat = setInterval(() => write(HEARTBEAT_TEXT), STREAM_HEARTBEAT_MS);
        cleanups.push(() => clearInterval(heartbeat));
        cleanups.push(endOnShutdown(end));
        if (opts.session) {
          const onSessionEnd = opts.onSessionEnd;
          cleanups.push(
            endWithSession(opts.session, () => {
              if (ended) return;
              onSessionEnd?.(w);
              end();
            }),
          );
        }
        opts.signal.addEventListener("abort", end);
        cleanups.push(() => opts.signal.removeEventListener("abort", end));
        write(`retry: ${opts.retryMs}\n: ${opts.greeting ?? "connected"}\n\n`);
        try {
          const cleanup = opts.start(w);
          if (cleanup) {
            if (ended) cleanup();
            else cleanups.push(cleanup);
          }
        } catch (e) {
          end();
          throw e;
        }
      },
      cancel() {
        finish();
      },
    },
    streamQueuingStrategy(),
  );
  // An abort before the listener was added is not told to it.
  if (opts.signal.aborted) finish();
  return eventStreamResponse(stream);
}

/**
 * Counts one more open event stream for `context`, refusing (429) past the cap. Every event
 * stream of the dashboard takes a slot; returns the (idempotent) release.
 */
function claimStreamSlot(context: string): () => void {
  const count = open.get(context) ?? 0;
  if (count >= MAX_STREAMS_PER_CONTEXT) {
    throw new KubeApiError(
      dashboardError({
        status: 429,
        reason: "TooManyStreams",
        message: `${count} live streams are already open for context "${context}"; close some tabs`,
      }),
    );
  }
  open.set(context, count + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (open.get(context) ?? 1) - 1;
    if (left > 0) open.set(context, left);
    else open.delete(context);
  };
}

/** How much an event stream may queue for a client before `desiredSize` goes negative. */
function streamQueuingStrategy(): QueuingStrategy<Uint8Array> {
  return new ByteLengthQueuingStrategy({ highWaterMark: MAX_QUEUED_BYTES });
}

/** The response of every event stream: no caching, no proxy buffering. */
function eventStreamResponse(stream: ReadableStream<Uint8Array>): Response {
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}
