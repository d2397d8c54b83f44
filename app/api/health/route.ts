import { respond } from "@/server/http/respond";
import { processHealthRoute } from "@/lib/api/health-process";
import { openStreams } from "@/server/http/event-stream";
import { watchHub } from "@/server/kube/watch-hub";

export const dynamic = "force-dynamic";

/**
 * Liveness of the dashboard process itself (not of the cluster), with the resources it holds:
 * upstream watches, open event streams, resident memory. Counts only; no cluster data.
 */
export function GET(): Response {
  return respond(processHealthRoute, {
    ok: true,
    upstreamWatches: watchHub().size,
    liveStreams: openStreams(),
    rssBytes: process.memoryUsage().rss,
  });
}
