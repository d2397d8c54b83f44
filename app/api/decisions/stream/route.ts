import { z } from "zod";
import { handle } from "@/server/http/respond";
import { authorizeDecisionsRead } from "@/server/audit/access";
import { decisionStore, subscribeDecisions } from "@/server/decisions/instance";
import { matchesDecisionFilter, parseDecisionFilter } from "@/lib/decisions/filter";
import type { DecisionRecord } from "@/lib/admission/audit/audit";
import type { decisionStreamRoute } from "@/lib/api/decisions";
import type { ResponseOf } from "@/lib/api/contract";
import { streamOwnerOf, streamSessionOf } from "@/server/kube/identity";
import { openEventStream, type EventStreamWriter } from "@/server/http/event-stream";

export const dynamic = "force-dynamic";

/** RBAC is asked again this often: a revoked grant ends the stream. */
const RECHECK_MS = 60_000;
/** Decisions one catch-up read takes: a catch-up reads page after page until it has them all. */
const CATCH_UP_PAGE = 2_000;
/**
 * Missed decisions a catch-up sends at most, and live ones it holds back meanwhile; past either
 * the client is told to resync, reading its list again. Well above what arrives while a page reads its list
 * and opens the stream on a busy store (thousands a second): a bound of one page made each
 * reconnection there resync, and each resync's reconnection resync again.
 */
const CATCH_UP_LIMIT = 20_000;

const cursor = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional();

/**
 * Server-Sent Events: decisions matching the filter as they are stored (`event: decisions`, the
 * id of the newest as the event id). With `after` (or Last-Event-ID on a reconnect) it first
 * sends what was stored since, a page at a time (up to CATCH_UP_LIMIT; past it, `event: resync`).
 * A client too slow to read is sent `event: resync` and dropped.
 * Each stream takes one of its owner's stream slots (the context's; in shared mode the session's).
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const params = new URL(request.url).searchParams;
    const filter = parseDecisionFilter(params);
    const after = cursor.parse(
      request.headers.get("last-event-id") || params.get("after") || undefined,
    );
    await authorizeDecisionsRead(request);
    const store = await decisionStore();
    const session = streamSessionOf(request);
    const resync = (w: EventStreamWriter) => {
      w.write("event: resync\ndata: {}\n\n");
      w.end();
    };
    return openEventStream({
      owner: streamOwnerOf(request),
      signal: request.signal,
      retryMs: 1000,
      ...(session ? { session } : {}),
      start(w) {
        let last = after ?? 0;
        let catchingUp = after !== undefined;
        const held: DecisionRecord[] = [];
        // Live batches are told once each, but not always in id order (replicas sharing
        // PostgreSQL commit concurrently): only what a catch-up read already sent is dropped.
        let caughtUpTo = after ?? 0;
        const emit = (items: DecisionRecord[]) => {
          const fresh = items.filter((d) => d.id > caughtUpTo && matchesDecisionFilter(d, filter));
          if (fresh.length === 0) return;
          if (w.behind()) return resync(w);
          for (const d of fresh) last = Math.max(last, d.id);
          const msg: ResponseOf<typeof decisionStreamRoute> = { items: fresh };
          w.send("decisions", msg, last);
        };
        const unsubscribe = subscribeDecisions((items) => {
          if (!catchingUp) return emit(items);
          held.push(...items);
          if (held.length > CATCH_UP_LIMIT) resync(w);
        });
        const recheck = setInterval(() => {
          authorizeDecisionsRead(request).catch(() => {
            w.write("event: forbidden\ndata: {}\n\n");
            w.end();
          });
        }, RECHECK_MS);
        if (catchingUp) {
          const catchUp = async () => {
            // Oldest first, a page at a time, from the id the client holds.
            for (let from = last, sent = 0; ;) {
              const missed = await store.after(filter, from, CATCH_UP_PAGE);
              if (w.ended) return;
              sent += missed.length;
              if (sent > CATCH_UP_LIMIT) return resync(w);
              emit(missed);
              if (w.ended) return;
              const newest = missed.at(-1)?.id;
              if (missed.length < CATCH_UP_PAGE || newest === undefined) break;
              from = newest;
            }
            caughtUpTo = last;
            catchingUp = false;
            emit(held.splice(0));
            caughtUpTo = 0;
          };
          void catchUp().catch(() => resync(w));
        }
        return () => {
          unsubscribe();
          clearInterval(recheck);
        };
      },
    });
  });
}
