import { handle, respond } from "@/server/http/respond";
import { admissionConfigRoute } from "@/lib/api/admission-config";
import { admissionConfigFromEnv } from "@/server/admission-config";
import { clientFor } from "@/server/kube/identity";

export const dynamic = "force-dynamic";

/**
 * The PodSecurity plugin's defaults and exemptions from PORTCULLIS_ADMISSION_CONFIG: served to
 * whoever may read the cluster through the dashboard (a signed-in user in shared mode).
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    clientFor(request);
    return respond(admissionConfigRoute, admissionConfigFromEnv());
  });
}
