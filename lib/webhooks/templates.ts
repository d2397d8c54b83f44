/** Starting points for new configurations: common, safe patterns. Pure data. */
import { POLICY_TEMPLATES } from "@/lib/policies/templates";
import type { WebhookTemplate } from "./template-model";
import { setYamlPath } from "./yaml-text";

export type { WebhookTemplate } from "./template-model";

export const TEMPLATES: readonly WebhookTemplate[] = [
  {
    id: "validating-runlevel",
    title: "Validating hook with runlevel exemptions",
    description: "fail-closed policy check that never blocks bootstrap namespaces",
    resource: "validatingwebhookconfigurations",
    yaml: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: policy-check
webhooks:
  - name: pods.policy-check.example.com
    admissionReviewVersions: ["v1"]
    sideEffects: None
    failurePolicy: Fail
    timeoutSeconds: 5
    matchPolicy: Equivalent
    clientConfig:
      service:
        namespace: policy-system
        name: policy-check
        path: /validate
        port: 443
    rules:
      - operations: ["CREATE", "UPDATE"]
        apiGroups: [""]
        apiVersions: ["v1"]
        resources: ["pods"]
        scope: Namespaced
    # Bootstrap namespaces (runlevel 0 and 1) are exempt, so the cluster can always recover
    # even when the webhook's own backend is down.
    namespaceSelector:
      matchExpressions:
        - key: runlevel
          operator: NotIn
          values: ["0", "1"]
        - key: kubernetes.io/metadata.name
          operator: NotIn
          values: ["kube-system", "policy-system"]
`,
  },
  {
    id: "mutating-sidecar",
    title: "Mutating sidecar injector",
    description: "injects into pods of opted-in namespaces, re-invoked if others mutate",
    resource: "mutatingwebhookconfigurations",
    yaml: `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: sidecar-injector
webhooks:
  - name: inject.sidecar-injector.example.com
    admissionReviewVersions: ["v1"]
    sideEffects: None
    failurePolicy: Ignore
    timeoutSeconds: 3
    reinvocationPolicy: IfNeeded
    clientConfig:
      service:
        namespace: sidecar-system
        name: sidecar-injector
        path: /inject
    rules:
      - operations: ["CREATE"]
        apiGroups: [""]
        apiVersions: ["v1"]
        resources: ["pods"]
        scope: Namespaced
    namespaceSelector:
      matchLabels:
        sidecar-injection: enabled
    objectSelector:
      matchExpressions:
        - key: sidecar.example.com/inject
          operator: NotIn
          values: ["false"]
`,
  },
  {
    id: "url-hook",
    title: "URL hook",
    description: "a backend outside the cluster, called by URL",
    resource: "validatingwebhookconfigurations",
    yaml: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: external-check
webhooks:
  - name: configmaps.external-check.example.com
    admissionReviewVersions: ["v1"]
    sideEffects: None
    failurePolicy: Ignore
    timeoutSeconds: 5
    clientConfig:
      url: https://admission.example.com:8443/validate
    rules:
      - operations: ["CREATE", "UPDATE"]
        apiGroups: [""]
        apiVersions: ["v1"]
        resources: ["configmaps"]
    namespaceSelector:
      matchLabels:
        external-check: enabled
`,
  },
];

/** A template by id (webhook configurations and admission policies alike). */
export function templateById(id: string): WebhookTemplate | undefined {
  return TEMPLATES.find((t) => t.id === id) ?? POLICY_TEMPLATES.find((t) => t.id === id);
}

/**
 * A binding template's text for the policy just created: spec.policyName names it and the
 * binding is named after it, so a renamed policy still gets a working binding.
 */
export function bindingTextFor(template: WebhookTemplate, policyName: string | undefined): string {
  if (!policyName) return template.yaml;
  const named = setYamlPath(template.yaml, ["spec", "policyName"], policyName);
  return setYamlPath(named, ["metadata", "name"], `${policyName}-binding`);
}
