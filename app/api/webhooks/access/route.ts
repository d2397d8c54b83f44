import { handle, respond } from "@/server/http/respond";
import { webhookAccessRoute } from "@/lib/api/webhooks";
import { clientFor } from "@/server/kube/identity";
import { admissionAccess, legacyAdmissionAccess } from "@/server/kube/access";

export const dynamic = "force-dynamic";

/**
 * What the request's identity may do with admission configurations and policies
 * (SelfSubjectAccessReview); `?kinds=legacy`: with the historical kinds instead.
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    // The one field parsed by itself: its errors read as before, "(input): …".
    const kinds = webhookAccessRoute.input.shape.kinds.parse(
      new URL(request.url).searchParams.get("kinds") ?? undefined,
    );
    const client = clientFor(request);
    return respond(
      webhookAccessRoute,
      kinds === "legacy"
        ? await legacyAdmissionAccess(client, request.signal)
        : await admissionAccess(client, request.signal),
    );
  });
}
