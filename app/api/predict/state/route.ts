import { handle, respond } from "@/server/http/respond";
import { clientFor } from "@/server/kube/identity";
import { readAdmissionState } from "@/server/kube/admission-state";
import { manifestWatcherFromEnv } from "@/server/kube/admission-manifests";
import { visibleManifestDirs } from "@/server/kube/admission-manifests-access";
import { predictStateRoute } from "@/lib/api/predict";
import { admissionConfigFromEnv } from "@/server/admission-config";

export const dynamic = "force-dynamic";

/** The admission state the predict page predicts from, read as the request's identity. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const client = clientFor(request);
    const dirs = manifestWatcherFromEnv()?.state().dirs;
    const manifests = dirs && (await visibleManifestDirs(client, dirs, request.signal));
    const state = await readAdmissionState(client, {
      signal: request.signal,
      ...(manifests ? { manifests } : {}),
    });
    // The PodSecurity plugin's defaults and exemptions, when the dashboard was given the file.
    const admission = admissionConfigFromEnv();
    const notices = admission.error ? [...state.notices, admission.error] : state.notices;
    const snapshot = admission.podSecurity
      ? { ...state.snapshot, podSecurity: admission.podSecurity }
      : state.snapshot;
    return respond(predictStateRoute, { context: client.context, ...state, snapshot, notices });
  });
}
