import { z } from "zod";
import { handle, json } from "@/server/http/respond";
import { clientFor, contextOf, metricsClientFor } from "@/server/kube/identity";
import { admissionHealth } from "@/server/health/report";
import { HEALTH_FILTER_FIELDS } from "@/lib/queries/health";

export const dynamic = "force-dynamic";

/** Object names are at most 253 characters; anything longer matches nothing and is refused. */
const name = z.string().min(1).max(253).optional();
const filterSchema = z
  .object({
    source: z
      .enum([
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
        "CustomResourceDefinition",
      ])
      .optional(),
    configuration: name,
    kind: z.enum(["ValidatingAdmissionPolicy", "MutatingAdmissionPolicy"]).optional(),
    policy: name,
    binding: name,
  })
  .strict();

/**
 * Health of every admission hook as the request's identity sees it: the apiserver's metrics
 * (scraped with that identity's credentials), a probe of each backend and its CA bundle.
 * `?source=&configuration=` narrows it to one configuration, `?policy=[&kind=][&binding=]` to
 * one policy.
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const context = contextOf(request);
    const params = new URL(request.url).searchParams;
    const raw: Record<string, string> = {};
    for (const [k, v] of params) {
      if ((HEALTH_FILTER_FIELDS as readonly string[]).includes(k)) raw[k] = v;
    }
    const filter = filterSchema.parse(raw);
    return json(
      await admissionHealth(context, clientFor(request), request.signal, filter, () =>
        metricsClientFor(request),
      ),
    );
  });
}
