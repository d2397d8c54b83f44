import { handle, respond } from "@/server/http/respond";
import { objectName, webhookDetailsRoute } from "@/lib/api/webhooks";
import { clientFor } from "@/server/kube/identity";
import { getConfiguration } from "@/server/kube/webhooks";
import { backendOf } from "@/server/kube/backends";
import { decodeCaBundle } from "@/server/kube/x509";
import { webhookResource } from "@/server/kube/webhook-input";
import type { AdmissionregistrationV1WebhookClientConfig } from "@/lib/k8s/types";

export const dynamic = "force-dynamic";

/**
 * What the detail page needs from the server for each hook, by position: the decoded caBundle
 * (node:crypto; certificates only) and the backend (service, ports, ready endpoints, or url).
 */
export async function GET(
  request: Request,
  { params }: { params: Promise<{ resource: string; name: string }> },
): Promise<Response> {
  return handle(async () => {
    const p = await params;
    const r = webhookResource(p.resource);
    const name = objectName.parse(p.name);
    const client = clientFor(request);
    const obj = await getConfiguration(client, r, name, request.signal);
    const hooks = await Promise.all(
      (obj.webhooks ?? []).map(async (h) => {
        const cc = h.clientConfig as AdmissionregistrationV1WebhookClientConfig | undefined;
        return {
          name: typeof h.name === "string" ? h.name : "",
          ca: decodeCaBundle(cc?.caBundle),
          backend: await backendOf(client, cc, request.signal),
        };
      }),
    );
    return respond(webhookDetailsRoute, {
      resourceVersion: obj.metadata?.resourceVersion ?? "",
      hooks,
    });
  });
}
