import { handle, respond } from "@/server/http/respond";
import { breakGlassRevertRoute } from "@/lib/api/break-glass";
import { readJson } from "@/server/http/body";
import { clientFor } from "@/server/kube/identity";
import { revertNow } from "@/server/break-glass/service";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ id: string }> };

/** Reverts now as the request's identity, or answers a revert that kept fields. */
export async function POST(request: Request, { params }: Params): Promise<Response> {
  return handle(async () => {
    const { id } = await params;
    const client = clientFor(request);
    const answer = breakGlassRevertRoute.input.parse(await readJson(request));
    return respond(breakGlassRevertRoute, await revertNow(client, id, answer, request.signal));
  });
}
