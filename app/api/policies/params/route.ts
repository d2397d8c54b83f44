import { handle, json } from "@/server/http/respond";
import { clientFor } from "@/server/kube/identity";
import { policyParamsReport } from "@/server/kube/policy-params";

export const dynamic = "force-dynamic";

/** What each policy binding's paramRef resolves to, read as the request's identity. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => json(await policyParamsReport(clientFor(request), request.signal)));
}
