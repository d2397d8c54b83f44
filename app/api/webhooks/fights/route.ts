import { handle, respond } from "@/server/http/respond";
import { fightsRoute } from "@/lib/api/webhooks";
import { authorizeCollections, contextOf } from "@/server/kube/identity";
import { fightsOf } from "@/server/webhooks/fight-monitor";
import { ADMISSION_GROUP } from "@/lib/k8s/admission-apis";

export const dynamic = "force-dynamic";

/**
 * The reconcile fights seen on the request's context: field managers flipping a field of a
 * webhook configuration, policy or binding back and forth. Shared mode: only for a user who may
 * list and watch the webhook configurations (the watches run as the dashboard's account).
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    await authorizeCollections(
      request,
      ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"].map((resource) => ({
        group: ADMISSION_GROUP,
        version: "v1",
        resource,
      })),
    );
    return respond(fightsRoute, await fightsOf(contextOf(request)));
  });
}
