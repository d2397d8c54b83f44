import { handle, respond } from "@/server/http/respond";
import { decisionTallyRoute } from "@/lib/api/decisions";
import { authorizeDecisionsRead } from "@/server/audit/access";
import { decisionStore } from "@/server/decisions/instance";
import { sharedTally } from "@/server/decisions/tally";
import { parseDecisionFilter } from "@/lib/decisions/filter";

export const dynamic = "force-dynamic";

/**
 * Stored decisions counted by webhook or policy and outcome, over the filter's time range (by
 * default the last 15 minutes): what the overview shows of the hooks that did not let requests
 * through.
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const filter = parseDecisionFilter(new URL(request.url).searchParams);
    await authorizeDecisionsRead(request);
    return respond(decisionTallyRoute, await sharedTally(await decisionStore(), filter));
  });
}
