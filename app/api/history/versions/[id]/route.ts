import { z } from "zod";
import { handle, respond } from "@/server/http/respond";
import { authorizeDecisionsRead } from "@/server/audit/access";
import { versionOf } from "@/server/history/service";
import { historyVersionRoute } from "@/lib/api/history";
import { KubeApiError } from "@/lib/k8s/errors";
import { dashboardError } from "@/lib/api/contract";

export const dynamic = "force-dynamic";

/** One stored change with the object after it: what a restore opens in the editor. */
export async function GET(
  request: Request,
  { params }: { params: Promise<{ id: string }> },
): Promise<Response> {
  return handle(async () => {
    const id = z.coerce
      .number()
      .int()
      .min(1)
      .parse((await params).id);
    await authorizeDecisionsRead(request);
    const change = await versionOf(id);
    if (!change)
      throw new KubeApiError(
        dashboardError({ status: 404, reason: "NotFound", message: `no stored change ${id}` }),
      );
    return respond(historyVersionRoute, change);
  });
}
