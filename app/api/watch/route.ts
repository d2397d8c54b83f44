import { errorResponse, handle } from "@/server/http/respond";
import { contextOf } from "@/server/kube/identity";
import { watchHub, type HubEvent } from "@/server/kube/watch-hub";
import { collectionPath, isReadableCollection, parseRef, refToString } from "@/lib/k8s/resources";

export const dynamic = "force-dynamic";

const HEARTBEAT_MS = 15_000;
const MAX_COLLECTIONS = 16;

/**
 * Server-Sent Events: live changes to the named collections (`?r=group/version/resource`,
 * repeated), from the shared watch hub. Each message is `{ collection, ...HubEvent }`; a SYNC
 * message replaces the collection (first message, and again after a relist).
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const names = new URL(request.url).searchParams.getAll("r");
    const refs = names.map((n) => parseRef(n));
    if (
      names.length === 0 ||
      names.length > MAX_COLLECTIONS ||
      refs.some((r) => !r || !isReadableCollection(r))
    ) {
      return errorResponse({
        status: 400,
        reason: "BadRequest",
        message: `name 1–${MAX_COLLECTIONS} readable collections with ?r=group/version/resource`,
        cluster: "",
      });
    }
    const context = contextOf(request);
    const encoder = new TextEncoder();
    const unsubscribes: Array<() => void> = [];
    let heartbeat: NodeJS.Timeout | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const send = (text: string) => {
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            // the client went away; cancel() cleans up
          }
        };
        send(`retry: 1000\n: connected as ${context}\n\n`);
        for (const ref of refs) {
          if (!ref) continue;
          const collection = refToString(ref);
          unsubscribes.push(
            watchHub().subscribe(context, collectionPath(ref), (e: HubEvent) => {
              send(`data: ${JSON.stringify({ collection, ...e })}\n\n`);
            }),
          );
        }
        heartbeat = setInterval(() => send(": keep-alive\n\n"), HEARTBEAT_MS);
      },
      cancel() {
        clearInterval(heartbeat);
        for (const u of unsubscribes) u();
      },
    });
    request.signal.addEventListener("abort", () => {
      clearInterval(heartbeat);
      for (const u of unsubscribes) u();
    });
    return new Response(stream, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      },
    });
  });
}
