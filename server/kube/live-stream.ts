import "server-only";
import { KubeApiError } from "@/lib/k8s/errors";
import { SESSION_REQUIRED } from "@/lib/auth/session-cookie";
import { collectionPath, refToString, type ResourceRef } from "@/lib/k8s/resources";
import { openEventStream, type EventStreamWriter } from "@/server/http/event-stream";
import { servesCollection } from "./served-collections";
import { watchHub, type HubEvent } from "./watch-hub";
import { dashboardError } from "@/lib/api/contract";

/** How often a stream's `recheck` runs. */
const RECHECK_MS = 15_000;

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
  /** An ERROR message naming `e` for the first collection, then the end. */
  const fail = (w: EventStreamWriter, e: unknown) => {
    const err = e instanceof KubeApiError ? e : undefined;
    w.send(undefined, {
      collection: refToString(refs[0] as ResourceRef),
      type: "ERROR",
      error: {
        status: err?.status ?? 500,
        reason: err?.reason ?? "InternalError",
        message: e instanceof Error ? e.message : String(e),
      },
    });
    w.end();
  };
  return openEventStream({
    owner: opts.owner ?? context,
    signal,
    retryMs: 1000,
    greeting: `connected as ${context}`,
    ...(opts.session ? { session: opts.session } : {}),
    // The session's end is told as the recheck tells it (an ERROR naming SessionRequired).
    onSessionEnd: (w) =>
      fail(
        w,
        new KubeApiError(
          dashboardError({
            status: 401,
            reason: SESSION_REQUIRED,
            message: "the session has ended (signed out, expired or revoked): sign in again",
          }),
        ),
      ),
    start(w) {
      const unsubscribes: Array<() => void> = [];
      let rechecking: NodeJS.Timeout | undefined;
      const cleanup = () => {
        clearInterval(rechecking);
        for (const u of unsubscribes.splice(0)) u();
      };
      const send = (text: string) => {
        // A reader this far behind is dropped (what is queued still drains); its EventSource
        // reconnects and resyncs from a snapshot. One message larger than the limit (a big
        // SYNC) is still sent whole when the queue was empty.
        if (w.behind()) w.end();
        else w.write(text);
      };
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
        cleanup();
        fail(w, e);
        return;
      }
      if (recheck) {
        rechecking = setInterval(() => {
          recheck().catch((e: unknown) => {
            if (!w.ended) fail(w, e);
          });
        }, RECHECK_MS);
      }
      return cleanup;
    },
  });
}
