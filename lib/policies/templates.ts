/**
 * Starting points for admission policies: each policy template names the binding template that
 * puts it into force (a policy without a binding is inert). Pure data.
 */
import type { WebhookTemplate } from "@/lib/webhooks/template-model";

const V = "admissionregistration.k8s.io/v1";

export const POLICY_TEMPLATES: readonly WebhookTemplate[] = [
  {
    id: "require-labels",
    title: "Require labels",
    description: "deny Deployments and ConfigMaps without an owner label",
    resource: "validatingadmissionpolicies",
    binding: "require-labels-binding",
    yaml: `apiVersion: ${V}
kind: ValidatingAdmissionPolicy
metadata:
  name: require-labels
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - operations: ["CREATE", "UPDATE"]
        apiGroups: ["", "apps"]
        apiVersions: ["v1"]
        resources: ["configmaps", "deployments"]
  validations:
    - expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels"
      message: "every object must carry an owner label"
      reason: Invalid
`,
  },
  {
    id: "require-labels-binding",
    title: "Binding for require labels",
    description: "deny in every namespace but the system ones",
    resource: "validatingadmissionpolicybindings",
    yaml: `apiVersion: ${V}
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: require-labels-binding
spec:
  policyName: require-labels
  validationActions: ["Deny"]
  matchResources:
    namespaceSelector:
      matchExpressions:
        - key: kubernetes.io/metadata.name
          operator: NotIn
          values: ["kube-system", "kube-public", "kube-node-lease"]
`,
  },
  {
    id: "forbid-privileged",
    title: "Forbid privileged pods",
    description: "deny pods whose containers ask for privileged mode",
    resource: "validatingadmissionpolicies",
    binding: "forbid-privileged-binding",
    yaml: `apiVersion: ${V}
kind: ValidatingAdmissionPolicy
metadata:
  name: forbid-privileged
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - operations: ["CREATE", "UPDATE"]
        apiGroups: [""]
        apiVersions: ["v1"]
        resources: ["pods"]
  variables:
    - name: containers
      expression: "object.spec.containers + (has(object.spec.initContainers) ? object.spec.initContainers : [])"
  validations:
    - expression: "variables.containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || c.securityContext.privileged == false)"
      message: "privileged containers are not allowed"
      reason: Forbidden
`,
  },
  {
    id: "forbid-privileged-binding",
    title: "Binding for forbid privileged pods",
    description: "deny everywhere except kube-system",
    resource: "validatingadmissionpolicybindings",
    yaml: `apiVersion: ${V}
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: forbid-privileged-binding
spec:
  policyName: forbid-privileged
  validationActions: ["Deny"]
  matchResources:
    namespaceSelector:
      matchExpressions:
        - key: kubernetes.io/metadata.name
          operator: NotIn
          values: ["kube-system"]
`,
  },
  {
    id: "deny-latest",
    title: "Deny :latest images",
    description: "warn first, deny later: images must name a tag other than latest",
    resource: "validatingadmissionpolicies",
    binding: "deny-latest-binding",
    yaml: `apiVersion: ${V}
kind: ValidatingAdmissionPolicy
metadata:
  name: deny-latest
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - operations: ["CREATE", "UPDATE"]
        apiGroups: [""]
        apiVersions: ["v1"]
        resources: ["pods"]
  validations:
    - expression: "object.spec.containers.all(c, !c.image.endsWith(':latest') && c.image.contains(':'))"
      messageExpression: "'pod ' + object.metadata.name + ' uses an untagged or :latest image'"
      reason: Invalid
`,
  },
  {
    id: "deny-latest-binding",
    title: "Binding for deny :latest images",
    description: "Warn (the request passes, the client sees a warning) and Audit",
    resource: "validatingadmissionpolicybindings",
    yaml: `apiVersion: ${V}
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: deny-latest-binding
spec:
  policyName: deny-latest
  validationActions: ["Warn", "Audit"]
`,
  },
  {
    id: "default-label",
    title: "Add a default label (mutation)",
    description: "label new ConfigMaps with team=unassigned unless they carry a team",
    resource: "mutatingadmissionpolicies",
    binding: "default-label-binding",
    yaml: `apiVersion: ${V}
kind: MutatingAdmissionPolicy
metadata:
  name: default-label
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
      - operations: ["CREATE"]
        apiGroups: [""]
        apiVersions: ["v1"]
        resources: ["configmaps"]
  matchConditions:
    - name: no-team-label
      expression: "!has(object.metadata.labels) || !('team' in object.metadata.labels)"
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: 'Object{ metadata: Object.metadata{ labels: {"team": "unassigned"} } }'
`,
  },
  {
    id: "default-label-binding",
    title: "Binding for add a default label",
    description: "applies the mutation in every namespace",
    resource: "mutatingadmissionpolicybindings",
    yaml: `apiVersion: ${V}
kind: MutatingAdmissionPolicyBinding
metadata:
  name: default-label-binding
spec:
  policyName: default-label
`,
  },
  {
    id: "validating-binding",
    title: "Binding for a validating policy",
    description: "Deny everywhere the policy matches",
    resource: "validatingadmissionpolicybindings",
    yaml: `apiVersion: ${V}
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: policy-binding
spec:
  policyName: policy
  validationActions: ["Deny"]
`,
  },
  {
    id: "mutating-binding",
    title: "Binding for a mutating policy",
    description: "mutate everywhere the policy matches",
    resource: "mutatingadmissionpolicybindings",
    yaml: `apiVersion: ${V}
kind: MutatingAdmissionPolicyBinding
metadata:
  name: policy-binding
spec:
  policyName: policy
`,
  },
];
