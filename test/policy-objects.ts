/** Admission policy objects the tests create on the real apiserver. */

/**
 * A binding, named as its ValidatingAdmissionPolicy, that denies with it in one namespace only
 * (selected by the name label every Namespace carries).
 */
export function denyInNamespaceBinding(policyName: string, namespace: string) {
  return {
    metadata: { name: policyName },
    spec: {
      policyName,
      validationActions: ["Deny"],
      matchResources: {
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": namespace } },
      },
    },
  };
}
