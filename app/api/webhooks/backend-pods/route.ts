import { handle, respond } from "@/server/http/respond";
import { backendPodsRoute } from "@/lib/api/webhooks";
import { clientFor } from "@/server/kube/identity";
import { readBackendPods } from "@/server/kube/backend-pods";

export const dynamic = "force-dynamic";

/**
 * The labels of the pods behind service-backed webhooks (`b=<namespace>/<selector>`, one per
 * backend Service's namespace and selector): the pods each selector selects, metadata only, and
 * where none does, the pod templates of the apps/v1 workloads it selects — read in those
 * namespaces only, as the request's identity.
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    // The one field parsed by itself: its errors read as before, "(input): …".
    const targets = backendPodsRoute.input.shape.b.parse(
      new URL(request.url).searchParams.getAll("b"),
    );
    return respond(
      backendPodsRoute,
      await readBackendPods(clientFor(request), targets, request.signal),
    );
  });
}
