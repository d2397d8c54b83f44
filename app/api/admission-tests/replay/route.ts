import { handle, respond } from "@/server/http/respond";
import { readJson } from "@/server/http/body";
import { authorizeDecisionsRead } from "@/server/audit/access";
import { decisionStore } from "@/server/decisions/instance";
import { caseStore } from "@/server/admission-tests/instance";
import { readFullParams, readSnapshot, replayEdit } from "@/server/admission-tests/replay";
import { clientFor } from "@/server/kube/identity";
import { replayRoute } from "@/lib/api/admission-tests";

export const dynamic = "force-dynamic";

/**
 * Replays an edit before it is applied: the configuration's kept cases and the feed's last
 * requests for its hooks, predicted against the state as it is and as the edit would leave it.
 * The state is read as the request's identity; cases and feed need the right to read decisions.
 */
export async function POST(request: Request): Promise<Response> {
  return handle(async () => {
    const input = replayRoute.input.parse(await readJson(request));
    await authorizeDecisionsRead(request);
    const [{ snapshot, notices, context }, cases, decisions] = await Promise.all([
      readSnapshot(request),
      caseStore(),
      decisionStore(),
    ]);
    const params = await readFullParams(
      clientFor(request),
      snapshot,
      input.resource === "validatingadmissionpolicies" ? input.object : undefined,
      request.signal,
    );
    return respond(
      replayRoute,
      await replayEdit({ input, snapshot, context, cases, decisions, notices, params }),
    );
  });
}
