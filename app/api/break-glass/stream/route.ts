import { handle } from "@/server/http/respond";
import { BREAK_GLASS_EVENT, type breakGlassStreamRoute } from "@/lib/api/break-glass";
import type { ResponseOf } from "@/lib/api/contract";
import { streamOwnerOf, streamSessionOf } from "@/server/kube/identity";
import { openEventStream } from "@/server/http/event-stream";
import { subscribeBreakGlass } from "@/server/break-glass/events";

export const dynamic = "force-dynamic";

/**
 * Server-Sent Events: `event: break-glass` whenever the episodes change (server/break-glass/events),
 * and the heartbeat. The events carry no episode — the banner reads the list route, which decides
 * what the user may see — so the stream asks no more of its user than the request policy does.
 * Each stream takes one of its owner's stream slots (the context's; in shared mode the session's).
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const session = streamSessionOf(request);
    return openEventStream({
      owner: streamOwnerOf(request),
      signal: request.signal,
      retryMs: 1000,
      ...(session ? { session } : {}),
      start: (w) =>
        subscribeBreakGlass(() => {
          const msg: ResponseOf<typeof breakGlassStreamRoute> = { at: Date.now() };
          w.send(BREAK_GLASS_EVENT, msg);
        }),
    });
  });
}
