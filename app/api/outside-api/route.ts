import { handle, respond } from "@/server/http/respond";
import { clientFor, contextOf, metricsClientFor } from "@/server/kube/identity";
import { outsideApiReport } from "@/server/outside-api/report";
import { outsideApiRoute } from "@/lib/api/outside-api";
import { knownNamesOf } from "@/lib/admission/outside-api/infer";
import { manifestWatcherFromEnv } from "@/server/kube/admission-manifests";

export const dynamic = "force-dynamic";

/**
 * The hooks and policies the apiserver runs that no API object holds (static manifests the
 * dashboard cannot read), inferred from its metrics (scraped as on Health) and the stored
 * decisions, less the objects the request's identity can list and the static objects read from
 * the directories the dashboard was given (PORTCULLIS_ADMISSION_MANIFESTS), which are shown whole.
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const context = contextOf(request);
    const files = manifestWatcherFromEnv()?.objects();
    return respond(
      outsideApiRoute,
      await outsideApiReport(
        context,
        clientFor(request),
        () => metricsClientFor(request),
        request.signal,
        files && knownNamesOf(files),
      ),
    );
  });
}
