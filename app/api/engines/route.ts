import { handle, respond } from "@/server/http/respond";
import { clientFor, contextOf } from "@/server/kube/identity";
import { readEngines } from "@/server/engines/read";
import { authorizeDecisionsRead } from "@/server/audit/access";
import { decisionStore } from "@/server/decisions/instance";
import { sharedTally } from "@/server/decisions/tally";
import { enginesRoute } from "@/lib/api/engines";
import { parseDecisionFilter } from "@/lib/decisions/filter";

export const dynamic = "force-dynamic";

/**
 * The policy engines as the request's identity sees them: their policies (engine CRDs found by
 * discovery; none on a cluster without engines), the hooks and admission policies each owns with
 * their call-order place, and the decisions of the last 15 minutes attributed to each (left out
 * with a notice when the identity may not read the decision feed).
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    enginesRoute.input.parse({});
    return respond(
      enginesRoute,
      await readEngines({
        client: clientFor(request),
        context: contextOf(request),
        signal: request.signal,
        tallies: async () => {
          await authorizeDecisionsRead(request);
          return (
            await sharedTally(await decisionStore(), parseDecisionFilter(new URLSearchParams()))
          ).tallies;
        },
      }),
    );
  });
}
