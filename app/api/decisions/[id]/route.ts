import { z } from "zod";
import { fail, handle, respond } from "@/server/http/respond";
import { authorizeDecisionsRead } from "@/server/audit/access";
import { decisionStore } from "@/server/decisions/instance";
import { decisionDetailRoute } from "@/lib/api/decisions";
import { withTracedDurations } from "@/server/traces/decisions";

export const dynamic = "force-dynamic";

const idParam = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** One decision with its audit event as stored (Secret and token contents removed). */
export async function GET(
  request: Request,
  ctx: { params: Promise<{ id: string }> },
): Promise<Response> {
  return handle(async () => {
    const id = idParam.parse((await ctx.params).id);
    await authorizeDecisionsRead(request);
    const detail = await (await decisionStore()).detail(id);
    if (!detail) {
      return fail(decisionDetailRoute, {
        status: 404,
        reason: "NotFound",
        message: `no stored decision ${id} (retention may have removed it)`,
      });
    }
    const [decision] = withTracedDurations([detail.decision]);
    return respond(decisionDetailRoute, { ...detail, decision: decision ?? detail.decision });
  });
}
