import { handle, json } from "@/server/http/respond";
import { clientFor } from "@/server/kube/identity";
import { pick, pickInput } from "@/server/predict/pick";

export const dynamic = "force-dynamic";

/** Names of a resource's objects, or one object, for the predict page's picker. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const q = new URL(request.url).searchParams;
    const input = pickInput.parse({
      resource: q.get("resource") ?? "",
      namespace: q.get("namespace") ?? "",
      name: q.get("name") ?? undefined,
    });
    return json(await pick(clientFor(request), input, request.signal));
  });
}
