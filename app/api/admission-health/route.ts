import { handle, json } from "@/server/http/respond";
import { contextOf } from "@/server/kube/identity";
import { kubeClientFor } from "@/server/kube/client";
import { admissionHealth } from "@/server/health/report";

export const dynamic = "force-dynamic";

/**
 * Health of every admission hook as the request's identity sees it: the apiserver's metrics
 * (scraped with that identity's credentials), a probe of each backend and its CA bundle.
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const context = contextOf(request);
    return json(await admissionHealth(context, kubeClientFor(context), request.signal));
  });
}
