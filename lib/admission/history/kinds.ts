/**
 * The admission configuration kinds whose changes are kept: webhook configurations, admission
 * policies and their bindings, each with the resource the apiserver serves it as.
 */

export type HistoryKind =
  | "MutatingWebhookConfiguration"
  | "ValidatingWebhookConfiguration"
  | "ValidatingAdmissionPolicy"
  | "ValidatingAdmissionPolicyBinding"
  | "MutatingAdmissionPolicy"
  | "MutatingAdmissionPolicyBinding";

export const HISTORY_GROUP = "admissionregistration.k8s.io";

/** Each kind's resource, in the order pages list them. */
export const HISTORY_RESOURCES: Readonly<Record<HistoryKind, string>> = {
  MutatingWebhookConfiguration: "mutatingwebhookconfigurations",
  ValidatingWebhookConfiguration: "validatingwebhookconfigurations",
  ValidatingAdmissionPolicy: "validatingadmissionpolicies",
  ValidatingAdmissionPolicyBinding: "validatingadmissionpolicybindings",
  MutatingAdmissionPolicy: "mutatingadmissionpolicies",
  MutatingAdmissionPolicyBinding: "mutatingadmissionpolicybindings",
};

export const HISTORY_KINDS = Object.keys(HISTORY_RESOURCES) as HistoryKind[];

/** The kind a resource of admissionregistration.k8s.io holds, or undefined for another one. */
export function kindOfResource(resource: string): HistoryKind | undefined {
  return HISTORY_KINDS.find((k) => HISTORY_RESOURCES[k] === resource);
}

export function isHistoryKind(s: string): s is HistoryKind {
  return (HISTORY_KINDS as readonly string[]).includes(s);
}

/**
 * The versions each resource may be served at, preferred first (MutatingAdmissionPolicy is v1
 * since 1.36, v1beta1 since 1.34, v1alpha1 since 1.32).
 */
export function servedVersions(kind: HistoryKind): readonly string[] {
  return kind.startsWith("Mutating") && kind.includes("Policy")
    ? ["v1", "v1beta1", "v1alpha1"]
    : ["v1"];
}
