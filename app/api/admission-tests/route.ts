import { fail, handle, respond } from "@/server/http/respond";
import { readJson } from "@/server/http/body";
import { authorizeDecisionsRead } from "@/server/audit/access";
import { decisionStore } from "@/server/decisions/instance";
import { caseStore } from "@/server/admission-tests/instance";
import { readSnapshot, saveDecisionCase } from "@/server/admission-tests/replay";
import { contextOf } from "@/server/kube/identity";
import { caseListRoute, saveCaseRoute } from "@/lib/api/admission-tests";
import { testCaseSchema } from "@/lib/admission/testing/format";

export const dynamic = "force-dynamic";

/**
 * The admission test cases kept for one configuration in this context. Cases hold requests seen
 * by the cluster (users, objects): who may read decisions may read them.
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const q = new URL(request.url).searchParams;
    const owner = caseListRoute.input.parse({
      resource: q.get("resource") ?? "",
      name: q.get("name") ?? "",
    });
    await authorizeDecisionsRead(request);
    const cases = await (await caseStore()).list(contextOf(request), [owner]);
    return respond(caseListRoute, { cases });
  });
}

/** Keeps a case: one built from a decision here, or one built in the browser (a Predict result). */
export async function POST(request: Request): Promise<Response> {
  return handle(async () => {
    const input = saveCaseRoute.input.parse(await readJson(request));
    await authorizeDecisionsRead(request);
    const cases = await caseStore();
    if ("case" in input)
      return respond(
        saveCaseRoute,
        await cases.save(contextOf(request), input.owner, testCaseSchema.parse(input.case)),
      );
    const detail = await (await decisionStore()).detail(input.decision);
    if (!detail)
      return fail(saveCaseRoute, {
        status: 404,
        reason: "NotFound",
        message: `no stored decision ${input.decision} (retention may have removed it)`,
      });
    const { snapshot, context } = await readSnapshot(request);
    return respond(
      saveCaseRoute,
      await saveDecisionCase({
        decision: detail.decision,
        rawEvent: detail.rawEvent,
        snapshot,
        context,
        owner: input.owner,
        cases,
      }),
    );
  });
}
