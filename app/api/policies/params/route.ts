import { handle, respond } from "@/server/http/respond";
import { policyParamsRoute } from "@/lib/api/policies";
import { clientFor } from "@/server/kube/identity";
import { policyParamsReport } from "@/server/kube/policy-params";

export const dynamic = "force-dynamic";

/** What each policy binding's paramRef resolves to, read as the request's identity. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () =>
    respond(policyParamsRoute, await policyParamsReport(clientFor(request), request.signal)),
  );
}
