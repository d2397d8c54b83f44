import "server-only";
import type { KubeClient } from "./client";
import { canI } from "./access";
import type { ManifestDirState } from "./admission-manifests";
import type { ManifestKind } from "@/lib/admission/model/manifests";

const RESOURCE: Record<ManifestKind, string> = {
  MutatingWebhookConfiguration: "mutatingwebhookconfigurations",
  ValidatingWebhookConfiguration: "validatingwebhookconfigurations",
  MutatingAdmissionPolicy: "mutatingadmissionpolicies",
  MutatingAdmissionPolicyBinding: "mutatingadmissionpolicybindings",
  ValidatingAdmissionPolicy: "validatingadmissionpolicies",
  ValidatingAdmissionPolicyBinding: "validatingadmissionpolicybindings",
};

/**
 * The directories as the request's identity may see them: the dashboard reads the files with its
 * own access, so an object is shown only to whoever may list its kind through the API (one
 * SelfSubjectAccessReview per kind present), as an API object of that kind would be.
 */
export async function visibleManifestDirs(
  client: KubeClient,
  dirs: readonly ManifestDirState[],
  signal?: AbortSignal,
): Promise<ManifestDirState[]> {
  const kinds = [...new Set(dirs.flatMap((d) => d.objects.map((o) => o.kind)))];
  const allowed = new Set<ManifestKind>();
  await Promise.all(
    kinds.map(async (kind) => {
      if (
        await canI(
          client,
          { group: "admissionregistration.k8s.io", resource: RESOURCE[kind], verb: "list" },
          signal,
        )
      )
        allowed.add(kind);
    }),
  );
  return dirs.map((d) =>
    d.objects.every((o) => allowed.has(o.kind))
      ? d
      : { ...d, objects: d.objects.filter((o) => allowed.has(o.kind)) },
  );
}
