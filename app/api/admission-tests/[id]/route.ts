import { z } from "zod";
import { fail, handle, respond } from "@/server/http/respond";
import { authorizeDecisionsRead } from "@/server/audit/access";
import { caseStore } from "@/server/admission-tests/instance";
import { contextOf } from "@/server/kube/identity";
import { caseRoute, deleteCaseRoute } from "@/lib/api/admission-tests";

export const dynamic = "force-dynamic";

const idParam = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** One kept case of this context. */
export async function GET(
  request: Request,
  ctx: { params: Promise<{ id: string }> },
): Promise<Response> {
  return handle(async () => {
    const id = idParam.parse((await ctx.params).id);
    await authorizeDecisionsRead(request);
    const c = await (await caseStore()).get(id);
    if (!c || c.context !== contextOf(request))
      return fail(caseRoute, { status: 404, reason: "NotFound", message: `no kept case ${id}` });
    return respond(caseRoute, c);
  });
}

/** Forgets a kept case of this context. */
export async function DELETE(
  request: Request,
  ctx: { params: Promise<{ id: string }> },
): Promise<Response> {
  return handle(async () => {
    const id = idParam.parse((await ctx.params).id);
    await authorizeDecisionsRead(request);
    const store = await caseStore();
    const c = await store.get(id);
    if (!c || c.context !== contextOf(request) || !(await store.remove(id)))
      return fail(deleteCaseRoute, {
        status: 404,
        reason: "NotFound",
        message: `no kept case ${id}`,
      });
    return respond(deleteCaseRoute, { deleted: true });
  });
}
