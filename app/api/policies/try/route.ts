import { handle, respond } from "@/server/http/respond";
import { tryRequestRoute } from "@/lib/api/policies";
import { readJson } from "@/server/http/body";
import { clientFor } from "@/server/kube/identity";
import { dryRunCreate } from "@/server/kube/try-request";

export const dynamic = "force-dynamic";

/** Dry-run create of any object as the request's identity: what admission would say, nothing stored. */
export async function POST(request: Request): Promise<Response> {
  return handle(async () => {
    const input = tryRequestRoute.input.parse(await readJson(request));
    return respond(
      tryRequestRoute,
      await dryRunCreate(clientFor(request), input.object, request.signal),
    );
  });
}
