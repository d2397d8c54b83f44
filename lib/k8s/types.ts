/**
 * Kubernetes API types, taken from @kubernetes/client-node rather than hand-copied.
 * Type-only: importing this module pulls no runtime code into client bundles.
 */
export type {
  V1MutatingWebhookConfiguration,
  V1MutatingWebhook,
  V1ValidatingWebhookConfiguration,
  V1ValidatingWebhook,
  V1RuleWithOperations,
  V1LabelSelector,
  V1LabelSelectorRequirement,
  AdmissionregistrationV1WebhookClientConfig,
  V1ValidatingAdmissionPolicy,
  V1ValidatingAdmissionPolicyBinding,
  V1APIResource,
  V1APIGroup,
  V1MatchResources,
  V1NamedRuleWithOperations,
  V1beta1MutatingAdmissionPolicy,
  V1beta1MutatingAdmissionPolicyBinding,
  V1Service,
  V1EndpointSlice,
  V1Pod,
} from "@kubernetes/client-node";

/** Admission operations as they appear in rules and AdmissionReview requests. */
export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** Values the apiserver accepts for the enumerated webhook fields. */
export type FailurePolicy = "Fail" | "Ignore";
export type MatchPolicy = "Exact" | "Equivalent";
export type ReinvocationPolicy = "Never" | "IfNeeded";
