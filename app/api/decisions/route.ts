import { z } from "zod";
import { handle, respond } from "@/server/http/respond";
import { authorizeDecisionsRead } from "@/server/audit/access";
import { decisionStore } from "@/server/decisions/instance";
import { parseDecisionFilter } from "@/lib/decisions/filter";
import { bucketSizeFor, DEFAULT_CHART_WINDOW_MS } from "@/lib/decisions/histogram";
import { DECISION_PAGE_LIMIT, decisionListRoute } from "@/lib/api/decisions";
import { withTracedDurations } from "@/server/traces/decisions";

export const dynamic = "force-dynamic";

const paging = z.object({
  limit: z.coerce.number().int().min(1).max(DECISION_PAGE_LIMIT).default(200),
  before: z.coerce.number().int().min(1).optional(),
});

/** Stored admission decisions, newest first, with a chart of the same filter over time. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const params = new URL(request.url).searchParams;
    const filter = parseDecisionFilter(params);
    const page = paging.parse({
      limit: params.get("limit") ?? undefined,
      before: params.get("before") ?? undefined,
    });
    await authorizeDecisionsRead(request);
    const store = await decisionStore();
    const to = filter.to ?? Date.now();
    const from = filter.from ?? to - DEFAULT_CHART_WINDOW_MS;
    const bucketMs = bucketSizeFor(from, to);
    const [items, buckets] = await Promise.all([
      store.list(filter, page),
      store.histogram({ ...filter, from, to }, bucketMs),
    ]);
    return respond(decisionListRoute, {
      items: withTracedDurations(items),
      histogram: { bucketMs, from, to, buckets },
    });
  });
}
