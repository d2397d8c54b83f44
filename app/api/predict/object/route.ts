import { handle, respond } from "@/server/http/respond";
import { pickObjectRoute } from "@/lib/api/predict";
import { clientFor } from "@/server/kube/identity";
import { pick } from "@/server/predict/pick";

export const dynamic = "force-dynamic";

/** Names of a resource's objects, or one object, for the predict page's picker. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const q = new URL(request.url).searchParams;
    const input = pickObjectRoute.input.parse({
      resource: q.get("resource") ?? "",
      namespace: q.get("namespace") ?? "",
      name: q.get("name") ?? undefined,
    });
    return respond(pickObjectRoute, await pick(clientFor(request), input, request.signal));
  });
}
