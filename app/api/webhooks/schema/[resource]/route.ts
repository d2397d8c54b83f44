import { handle, respond } from "@/server/http/respond";
import { kindSchemaRoute } from "@/lib/api/webhooks";
import { clientFor } from "@/server/kube/identity";
import { kindSchema } from "@/server/kube/openapi";
import { admissionResource } from "@/server/kube/webhook-input";
import { KIND_OF, WEBHOOK_GROUP, WEBHOOK_VERSION } from "@/lib/webhooks/resource-kinds";

export const dynamic = "force-dynamic";

/** JSON Schema of the kind from the cluster's own OpenAPI v3, for editor completion and hover. */
export async function GET(
  request: Request,
  { params }: { params: Promise<{ resource: string }> },
): Promise<Response> {
  return handle(async () => {
    const r = admissionResource((await params).resource);
    const schema = await kindSchema(
      clientFor(request),
      WEBHOOK_GROUP,
      WEBHOOK_VERSION,
      KIND_OF[r],
      request.signal,
    );
    return respond(kindSchemaRoute, schema);
  });
}
