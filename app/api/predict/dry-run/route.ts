import { handle, respond } from "@/server/http/respond";
import { dryRunRoute } from "@/lib/api/predict";
import { readJson } from "@/server/http/body";
import { clientFor } from "@/server/kube/identity";
import { dryRun } from "@/server/predict/dry-run";

export const dynamic = "force-dynamic";

/** Sends a request as a server-side dry run as the request's identity; answers the verdict. */
export async function POST(request: Request): Promise<Response> {
  return handle(async () => {
    const input = dryRunRoute.input.parse(await readJson(request));
    return respond(dryRunRoute, await dryRun(clientFor(request), input, request.signal));
  });
}
