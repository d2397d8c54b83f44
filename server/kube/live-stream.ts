import "server-only";
import { KubeApiError } from "@/lib/k8s/errors";
import { SESSION_REQUIRED } from "@/lib/auth/session-cookie";
import { collectionPath, refToString, type ResourceRef } from "@/lib/k8s/resources";
import { endOnShutdown } from "@/server/http/shutdown";
import { endWithSession } from "@/server/auth/session-streams";
import { HEARTBEAT_TEXT, STREAM_HEARTBEAT_MS } from "@/lib/api/streams";
import { servesCollection } from "./served-collections";
import { watchHub, type HubEvent } from "./watch-hub";
import { dashboardError } from "@/lib/api/contract";

/** How often a stream's `recheck` runs. */
const RECHECK_MS = 15_000;

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

/**
 * A Server-Sent Events response carrying the hub's events for `refs` as `context`. Refused
 * (4xx) when a collection is not served by the cluster or the context has too many streams.
 * `owner` names whose stream slots it takes (default: the context's). `recheck`, when given, runs
 * every RECHECK_MS while the stream is open; when it throws, the stream sends that error and ends
 * (shared mode: the user's session ended or their RBAC no longer lets them list what the shared
 * watch serves). `held[i]`, when not empty, is the resourceVersion the client already holds of
 * `refs[i]`: a first snapshot at that resourceVersion is sent as `CURRENT` without its items.
 * `session` (shared mode) ends the stream the moment that session ends.
 */
export async function openLiveStream(
  context: string,
  refs: ResourceRef[],
  signal: AbortSignal,
  opts: {
    owner?: string;
    recheck?: () => Promise<void>;
    held?: string[];
    /** Shared mode: the session whose end (sign-out, expiry, revocation) ends the stream. */
    session?: string;
  } = {},
): Promise<Response> {
  const { recheck } = opts;
  const served = await Promise.all(refs.map((r) => servesCollection(context, r)));
  const missing = refs.filter((_, i) => !served[i]);
  if (missing.length > 0) {
    throw new KubeApiError(
      dashboardError({
        status: 404,
        reason: "NotFound",
        message: `the cluster does not serve ${missing.map(refToString).join(", ")}`,
      }),
    );
  }
  const release = claimStreamSlot(opts.owner ?? context);

  const encoder = new TextEncoder();
  const unsubscribes: Array<() => void> = [];
  let heartbeat: NodeJS.Timeout | undefined;
  let rechecking: NodeJS.Timeout | undefined;
  let closed = false;
  let unregister = () => undefined as void;
  const close = () => {
    if (closed) return;
    closed = true;
    unregister();
    clearInterval(heartbeat);
    clearInterval(rechecking);
    for (const u of unsubscribes) u();
    release();
  };

  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const send = (text: string) => {
          if (closed) return;
          try {
            if ((controller.desiredSize ?? 0) < 0) {
              // A reader this far behind is dropped (what is queued still drains); its
              // EventSource reconnects and resyncs from a snapshot. One message larger than the
              // limit (a big SYNC) is still sent whole when the queue was empty.
              close();
              controller.close();
              return;
            }
            controller.enqueue(encoder.encode(text));
          } catch {
            close();
          }
        };
        const fail = (e: unknown) => {
          const err = e instanceof KubeApiError ? e : undefined;
          send(
            `data: ${JSON.stringify({
              collection: refToString(refs[0] as ResourceRef),
              type: "ERROR",
              error: {
                status: err?.status ?? 500,
                reason: err?.reason ?? "InternalError",
                message: e instanceof Error ? e.message : String(e),
              },
            })}\n\n`,
          );
          close();
          controller.close();
        };
        const end = () => {
          close();
          try {
            controller.close();
          } catch {
            // Already closed.
          }
        };
        const unregisterShutdown = endOnShutdown(end);
        // The session's end is told as the recheck tells it (an ERROR naming SessionRequired).
        const sessionEnded = () => {
          if (closed) return;
          try {
            fail(
              new KubeApiError(
                dashboardError({
                  status: 401,
                  reason: SESSION_REQUIRED,
                  message: "the session has ended (signed out, expired or revoked): sign in again",
                }),
              ),
            );
          } catch {
            end();
          }
        };
        const unregisterSession = opts.session
          ? endWithSession(opts.session, sessionEnded)
          : () => undefined;
        unregister = () => {
          unregisterShutdown();
          unregisterSession();
        };
        send(`retry: 1000\n: connected as ${context}\n\n`);
        try {
          refs.forEach((ref, i) => {
            const collection = refToString(ref);
            let first = true;
            const held = opts.held?.[i];
            unsubscribes.push(
              watchHub().subscribe(context, collectionPath(ref), (e: HubEvent) => {
                if (first && e.type === "SYNC") {
                  first = false;
                  if (held && e.resourceVersion === held) {
                    const { resourceVersion } = e;
                    send(
                      `data: ${JSON.stringify({ collection, type: "CURRENT", resourceVersion })}\n\n`,
                    );
                    return;
                  }
                }
                send(`data: ${JSON.stringify({ collection, ...e })}\n\n`);
              }),
            );
          });
        } catch (e) {
          fail(e);
          return;
        }
        heartbeat = setInterval(() => send(HEARTBEAT_TEXT), STREAM_HEARTBEAT_MS);
        if (recheck) {
          rechecking = setInterval(() => {
            recheck().catch((e: unknown) => {
              if (!closed) fail(e);
            });
          }, RECHECK_MS);
        }
      },
      cancel() {
        close();
      },
    },
    streamQueuingStrategy(),
  );
  signal.addEventListener("abort", close);
  return eventStreamResponse(stream);
}

/**
 * Counts one more open event stream for `context`, refusing (429) past the cap. Every event
 * stream of the dashboard takes a slot; returns the (idempotent) release.
 */
export function claimStreamSlot(context: string): () => void {
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
export function streamQueuingStrategy(): QueuingStrategy<Uint8Array> {
  return new ByteLengthQueuingStrategy({ highWaterMark: MAX_QUEUED_BYTES });
}

/** The response of every event stream: no caching, no proxy buffering. */
export function eventStreamResponse(stream: ReadableStream<Uint8Array>): Response {
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}
