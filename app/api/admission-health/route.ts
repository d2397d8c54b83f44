import { handle, respond } from "@/server/http/respond";
import { clientFor, contextOf, metricsClientFor } from "@/server/kube/identity";
import { admissionHealth } from "@/server/health/report";
import { manifestObjectsOf, manifestWatcherFromEnv } from "@/server/kube/admission-manifests";
import { visibleManifestDirs } from "@/server/kube/admission-manifests-access";
import { admissionHealthRoute, HEALTH_FILTER_FIELDS } from "@/lib/api/health";

export const dynamic = "force-dynamic";

/**
 * Health of every admission hook as the request's identity sees it: the apiserver's metrics
 * (scraped with that identity's credentials), a probe of each backend and its CA bundle.
 * `?source=&configuration=` narrows it to one configuration, `?policy=[&kind=][&binding=]` to
 * one policy.
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const context = contextOf(request);
    const client = clientFor(request);
    const params = new URL(request.url).searchParams;
    const raw: Record<string, string> = {};
    for (const [k, v] of params) {
      if ((HEALTH_FILTER_FIELDS as readonly string[]).includes(k)) raw[k] = v;
    }
    const filter = admissionHealthRoute.input.parse(raw);
    // Static objects are judged for whoever may list their kind, as API objects would be.
    const dirs = manifestWatcherFromEnv()?.state().dirs;
    const statics =
      dirs && manifestObjectsOf(await visibleManifestDirs(client, dirs, request.signal));
    return respond(
      admissionHealthRoute,
      await admissionHealth(
        context,
        client,
        request.signal,
        filter,
        () => metricsClientFor(request),
        statics,
      ),
    );
  });
}
