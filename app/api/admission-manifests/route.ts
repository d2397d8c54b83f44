import { handle, respond } from "@/server/http/respond";
import { clientFor } from "@/server/kube/identity";
import { manifestWatcherFromEnv } from "@/server/kube/admission-manifests";
import { admissionManifestsRoute } from "@/lib/api/admission-manifests";

export const dynamic = "force-dynamic";

/** The static manifest directories the dashboard was given, as read now. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    // Resolves the request's identity as every route does (refused without one in shared mode).
    clientFor(request);
    const w = manifestWatcherFromEnv();
    const state = w?.state();
    return respond(admissionManifestsRoute, {
      configured: w !== undefined,
      generation: state?.generation ?? 0,
      dirs: (state?.dirs ?? []).map((d) => ({
        dir: d.dir,
        plugin: d.plugin,
        objects: d.objects.map((o) => ({ kind: o.kind, name: o.name, file: o.file })),
        hash: d.hash,
        ...(d.error !== undefined ? { error: d.error } : {}),
        readAt: d.readAt,
      })),
      objects: w
        ? w.objects()
        : {
            mutatingWebhookConfigurations: [],
            validatingWebhookConfigurations: [],
            validatingAdmissionPolicies: [],
            validatingAdmissionPolicyBindings: [],
            mutatingAdmissionPolicies: [],
            mutatingAdmissionPolicyBindings: [],
            origins: {},
          },
    });
  });
}
