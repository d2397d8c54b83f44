/**
 * The per-webhook field defaults the apiserver applies (`SetDefaults_ValidatingWebhook`,
 * `SetDefaults_MutatingWebhook`, `SetDefaults_Rule`, `SetDefaults_ServiceReference` in
 * pkg/apis/admissionregistration/{v1,v1beta1}/defaults.go). One table for the defaulter, the
 * predictor, and every page that shows a default.
 */
export interface WebhookDefaults {
  readonly failurePolicy: "Fail" | "Ignore";
  readonly matchPolicy: "Equivalent" | "Exact";
  readonly timeoutSeconds: number;
  /** v1 does not default sideEffects (it is required); v1beta1 defaulted it to Unknown. */
  readonly sideEffects: "Unknown" | undefined;
  /** Mutating webhooks only. */
  readonly reinvocationPolicy: "Never";
  readonly ruleScope: "*";
  readonly servicePort: 443;
}

const V1: WebhookDefaults = {
  failurePolicy: "Fail",
  matchPolicy: "Equivalent",
  timeoutSeconds: 10,
  sideEffects: undefined,
  reinvocationPolicy: "Never",
  ruleScope: "*",
  servicePort: 443,
};

const V1BETA1: WebhookDefaults = {
  failurePolicy: "Ignore",
  matchPolicy: "Exact",
  timeoutSeconds: 30,
  sideEffects: "Unknown",
  reinvocationPolicy: "Never",
  ruleScope: "*",
  servicePort: 443,
};

/** The defaults for webhooks served at admissionregistration.k8s.io/`version`. */
export function webhookDefaults(version: string): WebhookDefaults {
  return version === "v1beta1" ? V1BETA1 : V1;
}
