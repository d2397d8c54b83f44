import { handle, respond } from "@/server/http/respond";
import { authorizeDecisionsRead } from "@/server/audit/access";
import { contextOf } from "@/server/kube/identity";
import { clusterFilter, recentChanges, startWatching } from "@/server/history/service";
import { historyRecentRoute } from "@/lib/api/history";

export const dynamic = "force-dynamic";

/** Recent changes of admission objects across the cluster, newest first, filtered. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const q = historyRecentRoute.input.parse(Object.fromEntries(new URL(request.url).searchParams));
    await authorizeDecisionsRead(request);
    await startWatching(contextOf(request));
    return respond(
      historyRecentRoute,
      await recentChanges(
        {
          actor: q.actor || undefined,
          kind: q.kind,
          name: q.name || undefined,
          ...clusterFilter(q.cluster),
          observed: q.observed === "1",
        },
        { limit: q.limit, ...(q.before ? { before: q.before } : {}) },
      ),
    );
  });
}
