import { handle, respond } from "@/server/http/respond";
import { clientFor, contextOf } from "@/server/kube/identity";
import { readEnginePolicies } from "@/server/engines/read";
import { recogniseOwnership } from "@/lib/admission/engines/ownership";
import { readAdmissionState } from "@/server/kube/admission-state";
import { manifestWatcherFromEnv } from "@/server/kube/admission-manifests";
import { visibleManifestDirs } from "@/server/kube/admission-manifests-access";
import { predictStateRoute } from "@/lib/api/predict";
import { admissionConfigFromEnv } from "@/server/admission-config";

export const dynamic = "force-dynamic";

/**
 * The admission state the predict page predicts from, and which policy engine owns each hook and
 * policy, read as the request's identity.
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const client = clientFor(request);
    const dirs = manifestWatcherFromEnv()?.state().dirs;
    const manifests = dirs && (await visibleManifestDirs(client, dirs, request.signal));
    const engineNotices: string[] = [];
    const [state, engines] = await Promise.all([
      readAdmissionState(client, {
        signal: request.signal,
        ...(manifests ? { manifests } : {}),
      }),
      readEnginePolicies({
        client,
        context: contextOf(request),
        notices: engineNotices,
        signal: request.signal,
      }),
    ]);
    // The engine policy behind each hook and policy, named on the calls the page predicts.
    const ownership = recogniseOwnership(state.snapshot, engines.sources);
    const owned = Object.keys(ownership.objects).length > 0;
    // The PodSecurity plugin's defaults and exemptions, when the dashboard was given the file.
    const admission = admissionConfigFromEnv();
    const notices = [
      ...state.notices,
      ...engineNotices,
      ...(admission.error ? [admission.error] : []),
    ];
    const snapshot = admission.podSecurity
      ? { ...state.snapshot, podSecurity: admission.podSecurity }
      : state.snapshot;
    return respond(predictStateRoute, {
      context: client.context,
      ...state,
      snapshot,
      ...(owned ? { ownership } : {}),
      notices,
    });
  });
}
