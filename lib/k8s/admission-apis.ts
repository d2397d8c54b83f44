/**
 * The admission configuration kinds Portcullis knows, across Kubernetes history, so discovery
 * results can be shown against what a cluster could serve. Pure data.
 */
export const ADMISSION_GROUP = "admissionregistration.k8s.io";

export interface KnownAdmissionKind {
  kind: string;
  resource: string;
  /** Versions of admissionregistration.k8s.io that have served this kind at some release. */
  versions: string[];
  /** Where it sits in the admission pipeline. */
  role: "mutating" | "validating" | "binding" | "initializer" | "legacy-webhook";
  history: string;
  /** Counted on Overview (bindings are counted beside their policies). */
  counted: boolean;
}

export const KNOWN_ADMISSION_KINDS: readonly KnownAdmissionKind[] = [
  {
    kind: "MutatingWebhookConfiguration",
    resource: "mutatingwebhookconfigurations",
    versions: ["v1", "v1beta1"],
    role: "mutating",
    history: "v1beta1 1.9–1.21, v1 since 1.16",
    counted: true,
  },
  {
    kind: "ValidatingWebhookConfiguration",
    resource: "validatingwebhookconfigurations",
    versions: ["v1", "v1beta1"],
    role: "validating",
    history: "v1beta1 1.9–1.21, v1 since 1.16",
    counted: true,
  },
  {
    kind: "ValidatingAdmissionPolicy",
    resource: "validatingadmissionpolicies",
    versions: ["v1", "v1beta1", "v1alpha1"],
    role: "validating",
    history: "alpha 1.26, beta 1.28, GA 1.30",
    counted: true,
  },
  {
    kind: "ValidatingAdmissionPolicyBinding",
    resource: "validatingadmissionpolicybindings",
    versions: ["v1", "v1beta1", "v1alpha1"],
    role: "binding",
    history: "alpha 1.26, beta 1.28, GA 1.30",
    counted: true,
  },
  {
    kind: "MutatingAdmissionPolicy",
    resource: "mutatingadmissionpolicies",
    versions: ["v1", "v1beta1", "v1alpha1"],
    role: "mutating",
    history: "alpha 1.32, beta 1.34, GA 1.36",
    counted: true,
  },
  {
    kind: "MutatingAdmissionPolicyBinding",
    resource: "mutatingadmissionpolicybindings",
    versions: ["v1", "v1beta1", "v1alpha1"],
    role: "binding",
    history: "alpha 1.32, beta 1.34, GA 1.36",
    counted: true,
  },
  {
    kind: "InitializerConfiguration",
    resource: "initializerconfigurations",
    versions: ["v1alpha1"],
    role: "initializer",
    history: "alpha 1.7–1.13, removed in 1.14",
    counted: true,
  },
  {
    kind: "ExternalAdmissionHookConfiguration",
    resource: "externaladmissionhookconfigurations",
    versions: ["v1alpha1"],
    role: "legacy-webhook",
    history: "alpha 1.7–1.8, replaced by webhook configurations in 1.9",
    counted: true,
  },
];
