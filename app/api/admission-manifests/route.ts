import { handle, respond } from "@/server/http/respond";
import { clientFor } from "@/server/kube/identity";
import { manifestObjectsOf, manifestWatcherFromEnv } from "@/server/kube/admission-manifests";
import { visibleManifestDirs } from "@/server/kube/admission-manifests-access";
import { admissionManifestsRoute } from "@/lib/api/admission-manifests";

export const dynamic = "force-dynamic";

/** The static manifest directories the dashboard was given, as read now. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const client = clientFor(request);
    const w = manifestWatcherFromEnv();
    const state = w?.state();
    // Shown as API objects of their kinds would be: to whoever may list them.
    const dirs = state ? await visibleManifestDirs(client, state.dirs, request.signal) : [];
    return respond(admissionManifestsRoute, {
      configured: w !== undefined,
      generation: state?.generation ?? 0,
      dirs: dirs.map((d) => ({
        dir: d.dir,
        plugin: d.plugin,
        objects: d.objects.map((o) => ({ kind: o.kind, name: o.name, file: o.file })),
        hash: d.hash,
        ...(d.error !== undefined ? { error: d.error } : {}),
        readAt: d.readAt,
      })),
      objects: manifestObjectsOf(dirs),
    });
  });
}
