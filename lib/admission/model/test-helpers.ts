/** Builders shared by the admission tests (not used by production code). */
import type { V1MutatingWebhook, V1ValidatingWebhook } from "@/lib/k8s/types";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";

/** A v1 webhook with the required fields filled in. */
export function hook(
  name: string,
  extra: Partial<V1MutatingWebhook> = {},
): V1MutatingWebhook & V1ValidatingWebhook {
  return {
    name,
    clientConfig: { url: "https://127.0.0.1:9443/x" },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
    ...extra,
  };
}

/** A snapshot with one validating configuration holding `hooks`. */
export function validatingSnapshot(
  hooks: Array<V1ValidatingWebhook>,
  extra: Partial<AdmissionSnapshot> = {},
): AdmissionSnapshot {
  return {
    validatingWebhookConfigurations: [{ metadata: { name: "cfg" }, webhooks: hooks }],
    namespaces: {
      default: { "kubernetes.io/metadata.name": "default" },
      "kube-system": { "kubernetes.io/metadata.name": "kube-system", runlevel: "0" },
      team: { "kubernetes.io/metadata.name": "team", env: "prod" },
    },
    ...extra,
  };
}
