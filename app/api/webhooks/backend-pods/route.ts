import { z } from "zod";
import { handle, json } from "@/server/http/respond";
import { clientFor } from "@/server/kube/identity";
import { readBackendPods } from "@/server/kube/backend-pods";
import { MAX_TARGETS, parseTargets } from "@/lib/namespaces/backend-pods";

export const dynamic = "force-dynamic";

const targetsParam = z
  .array(z.string())
  .max(MAX_TARGETS)
  .transform((values, ctx) => {
    const targets = parseTargets(values);
    if (!(targets instanceof Error)) return targets;
    ctx.addIssue({ code: "custom", message: targets.message });
    return z.NEVER;
  });

/**
 * The labels of the pods behind service-backed webhooks (`b=<namespace>/<selector>`, one per
 * backend Service's namespace and selector): the pods each selector selects, metadata only, and
 * where none does, the pod templates of the apps/v1 workloads it selects — read in those
 * namespaces only, as the request's identity.
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const targets = targetsParam.parse(new URL(request.url).searchParams.getAll("b"));
    return json(await readBackendPods(clientFor(request), targets, request.signal));
  });
}
