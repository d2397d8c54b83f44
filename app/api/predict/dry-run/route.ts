import { handle, json } from "@/server/http/respond";
import { readJson } from "@/server/http/body";
import { clientFor } from "@/server/kube/identity";
import { dryRun, dryRunInput } from "@/server/predict/dry-run";

export const dynamic = "force-dynamic";

/** Sends a request as a server-side dry run as the request's identity; answers the verdict. */
export async function POST(request: Request): Promise<Response> {
  return handle(async () => {
    const input = dryRunInput.parse(await readJson(request));
    return json(await dryRun(clientFor(request), input, request.signal));
  });
}
