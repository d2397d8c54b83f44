import { respond } from "@/server/http/respond";
import { processHealthRoute } from "@/lib/api/health-process";
import { openStreams } from "@/server/http/event-stream";
import { watchHub } from "@/server/kube/watch-hub";
import { kubeConnections } from "@/server/kube/client";

export const dynamic = "force-dynamic";

/**
 * Liveness of the dashboard process itself (not of the cluster), with the resources it holds:
 * upstream watches, open event streams, connections to the apiserver, resident memory. Counts
 * only; no cluster data.
 */
export function GET(): Response {
  return respond(processHealthRoute, {
    ok: true,
    upstreamWatches: watchHub().size,
    liveStreams: openStreams(),
    apiserverConnections: kubeConnections(),
    rssBytes: process.memoryUsage().rss,
  });
}
