/**
 * The audit annotation keys the apiserver records admission under (reference §4, checked in the
 * 1.37 source), shared by the feed's parser and the lint check that guards them.
 */
export const MUTATION = "mutation.webhook.admission.k8s.io/";
export const PATCH = "patch.webhook.admission.k8s.io/";
export const FAILED_OPEN_MUTATING = "failed-open.mutation.webhook.admission.k8s.io/";
export const FAILED_OPEN_VALIDATING = "failed-open.validating.webhook.admission.k8s.io/";
export const VALIDATION_FAILURE = "validation.policy.admission.k8s.io/validation_failure";
export const LATENCY = "apiserver.latency.k8s.io/";

/**
 * The prefixes the apiserver files its own admission records under, which the feed reads as such,
 * and what each records. A webhook's audit annotations (its response's auditAnnotations) and a
 * ValidatingAdmissionPolicy's are filed under `<its name>/<key>` (mutating/dispatcher.go,
 * validating/dispatcher.go; policy/validating/dispatcher.go): one named exactly like a prefix
 * writes keys no reader can tell from the apiserver's, and an annotation once set is never
 * overwritten (admission/attributes.go AddAnnotationWithLevel, audit/context.go), so writing
 * first it also keeps the apiserver's own record out.
 */
export const APISERVER_ANNOTATION_PREFIXES: ReadonlyArray<{ name: string; records: string }> = [
  {
    name: MUTATION.slice(0, -1),
    records: "which mutating webhook each call went to and whether it mutated",
  },
  { name: PATCH.slice(0, -1), records: "the patches mutating webhooks applied" },
  { name: FAILED_OPEN_MUTATING.slice(0, -1), records: "mutating webhook calls that failed open" },
  {
    name: FAILED_OPEN_VALIDATING.slice(0, -1),
    records: "validating webhook calls that failed open",
  },
  {
    name: VALIDATION_FAILURE.slice(0, VALIDATION_FAILURE.indexOf("/")),
    records: "ValidatingAdmissionPolicy validation failures",
  },
  { name: LATENCY.slice(0, -1), records: "how long each phase of a request took" },
];
