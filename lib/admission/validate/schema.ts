/**
 * The Go types the apiserver decodes each kind into, for strict decoding: which field names exist
 * (case-sensitive, as sigs.k8s.io/json decodes) and which JSON type each accepts. `go` is the Go
 * type name json's UnmarshalTypeError prints.
 */
export type Schema =
  | { t: "string"; go: string }
  | { t: "int"; go: "int32" | "int64" }
  | { t: "bool" }
  | { t: "bytes" }
  | { t: "time" }
  | { t: "any" }
  | { t: "list"; of: Schema; go: string }
  | { t: "map"; of: Schema; go: string }
  | { t: "struct"; go: string; fields: Record<string, Schema> };

const s = (go = "string"): Schema => ({ t: "string", go });
const i32: Schema = { t: "int", go: "int32" };
const i64: Schema = { t: "int", go: "int64" };
const bool: Schema = { t: "bool" };
const list = (of: Schema, go: string): Schema => ({ t: "list", of, go });
const strs = (elem = "string"): Schema => list(s(elem), `[]${elem}`);
const struct = (go: string, fields: Record<string, Schema>): Schema => ({
  t: "struct",
  go,
  fields,
});

const labelSelector = struct("LabelSelector", {
  matchLabels: { t: "map", of: s(), go: "map[string]string" },
  matchExpressions: list(
    struct("LabelSelectorRequirement", {
      key: s(),
      operator: s("v1.LabelSelectorOperator"),
      values: strs(),
    }),
    "[]v1.LabelSelectorRequirement",
  ),
});

const objectMeta = struct("ObjectMeta", {
  name: s(),
  generateName: s(),
  namespace: s(),
  selfLink: s(),
  uid: s("types.UID"),
  resourceVersion: s(),
  generation: i64,
  creationTimestamp: { t: "time" },
  deletionTimestamp: { t: "time" },
  deletionGracePeriodSeconds: i64,
  labels: { t: "map", of: s(), go: "map[string]string" },
  annotations: { t: "map", of: s(), go: "map[string]string" },
  ownerReferences: list(
    struct("OwnerReference", {
      apiVersion: s(),
      kind: s(),
      name: s(),
      uid: s("types.UID"),
      controller: bool,
      blockOwnerDeletion: bool,
    }),
    "[]v1.OwnerReference",
  ),
  finalizers: strs(),
  managedFields: list(
    struct("ManagedFieldsEntry", {
      manager: s(),
      operation: s("v1.ManagedFieldsOperationType"),
      apiVersion: s(),
      time: { t: "time" },
      fieldsType: s(),
      fieldsV1: { t: "any" },
      subresource: s(),
    }),
    "[]v1.ManagedFieldsEntry",
  ),
});

const ruleFields = (withOps: boolean, withScope: boolean): Record<string, Schema> => ({
  ...(withOps ? { operations: strs("v1.OperationType") } : {}),
  apiGroups: strs(),
  apiVersions: strs(),
  resources: strs(),
  ...(withScope ? { scope: s("v1.ScopeType") } : {}),
});

const ruleWithOperations = struct("RuleWithOperations", ruleFields(true, true));
const matchCondition = struct("MatchCondition", { name: s(), expression: s() });

const clientConfig = struct("WebhookClientConfig", {
  url: s(),
  service: struct("ServiceReference", { namespace: s(), name: s(), path: s(), port: i32 }),
  caBundle: { t: "bytes" },
});

function webhookFields(mutating: boolean): Record<string, Schema> {
  return {
    name: s(),
    clientConfig,
    rules: list(ruleWithOperations, "[]v1.RuleWithOperations"),
    failurePolicy: s("v1.FailurePolicyType"),
    matchPolicy: s("v1.MatchPolicyType"),
    namespaceSelector: labelSelector,
    objectSelector: labelSelector,
    sideEffects: s("v1.SideEffectClass"),
    timeoutSeconds: i32,
    admissionReviewVersions: strs(),
    ...(mutating ? { reinvocationPolicy: s("v1.ReinvocationPolicyType") } : {}),
    matchConditions: list(matchCondition, "[]v1.MatchCondition"),
  };
}

const top = (kind: string, rest: Record<string, Schema>): Schema =>
  struct(kind, { apiVersion: s(), kind: s(), metadata: objectMeta, ...rest });

const namedRule = struct("NamedRuleWithOperations", {
  resourceNames: strs(),
  ...ruleFields(true, true),
});
const matchResources = struct("MatchResources", {
  namespaceSelector: labelSelector,
  objectSelector: labelSelector,
  resourceRules: list(namedRule, "[]v1.NamedRuleWithOperations"),
  excludeResourceRules: list(namedRule, "[]v1.NamedRuleWithOperations"),
  matchPolicy: s("v1.MatchPolicyType"),
});
const paramKind = struct("ParamKind", { apiVersion: s(), kind: s() });
const paramRef = struct("ParamRef", {
  name: s(),
  namespace: s(),
  selector: labelSelector,
  parameterNotFoundAction: s("v1.ParameterNotFoundActionType"),
});
const variable = struct("Variable", { name: s(), expression: s() });
const condition = struct("Condition", {
  type: s(),
  status: s("v1.ConditionStatus"),
  observedGeneration: i64,
  lastTransitionTime: { t: "time" },
  reason: s(),
  message: s(),
});

/** Schemas by `<apiVersion>/<kind>`. */
export const schemas: Record<string, Schema> = {};

for (const v of ["admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1beta1"]) {
  schemas[`${v}/ValidatingWebhookConfiguration`] = top("ValidatingWebhookConfiguration", {
    webhooks: list(struct("ValidatingWebhook", webhookFields(false)), "[]v1.ValidatingWebhook"),
  });
  schemas[`${v}/MutatingWebhookConfiguration`] = top("MutatingWebhookConfiguration", {
    webhooks: list(struct("MutatingWebhook", webhookFields(true)), "[]v1.MutatingWebhook"),
  });
}

schemas["admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy"] = top(
  "ValidatingAdmissionPolicy",
  {
    spec: struct("ValidatingAdmissionPolicySpec", {
      paramKind,
      matchConstraints: matchResources,
      validations: list(
        struct("Validation", {
          expression: s(),
          message: s(),
          reason: s("v1.StatusReason"),
          messageExpression: s(),
        }),
        "[]v1.Validation",
      ),
      failurePolicy: s("v1.FailurePolicyType"),
      auditAnnotations: list(
        struct("AuditAnnotation", { key: s(), valueExpression: s() }),
        "[]v1.AuditAnnotation",
      ),
      matchConditions: list(matchCondition, "[]v1.MatchCondition"),
      variables: list(variable, "[]v1.Variable"),
    }),
    status: struct("ValidatingAdmissionPolicyStatus", {
      observedGeneration: i64,
      typeChecking: struct("TypeChecking", {
        expressionWarnings: list(
          struct("ExpressionWarning", { fieldRef: s(), warning: s() }),
          "[]v1.ExpressionWarning",
        ),
      }),
      conditions: list(condition, "[]v1.Condition"),
    }),
  },
);

schemas["admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding"] = top(
  "ValidatingAdmissionPolicyBinding",
  {
    spec: struct("ValidatingAdmissionPolicyBindingSpec", {
      policyName: s(),
      paramRef,
      matchResources,
      validationActions: strs("v1.ValidationAction"),
    }),
  },
);

for (const v of ["v1", "v1beta1", "v1alpha1"]) {
  const g = `admissionregistration.k8s.io/${v}`;
  schemas[`${g}/MutatingAdmissionPolicy`] = top("MutatingAdmissionPolicy", {
    spec: struct("MutatingAdmissionPolicySpec", {
      paramKind,
      matchConstraints: matchResources,
      variables: list(variable, `[]${v}.Variable`),
      mutations: list(
        struct("Mutation", {
          patchType: s(`${v}.PatchType`),
          applyConfiguration: struct("ApplyConfiguration", { expression: s() }),
          jsonPatch: struct("JSONPatch", { expression: s() }),
        }),
        `[]${v}.Mutation`,
      ),
      failurePolicy: s(`${v}.FailurePolicyType`),
      matchConditions: list(matchCondition, `[]${v}.MatchCondition`),
      reinvocationPolicy: s(`${v}.ReinvocationPolicyType`),
    }),
  });
  schemas[`${g}/MutatingAdmissionPolicyBinding`] = top("MutatingAdmissionPolicyBinding", {
    spec: struct("MutatingAdmissionPolicyBindingSpec", {
      policyName: s(),
      paramRef,
      matchResources,
    }),
  });
}

schemas["admissionregistration.k8s.io/v1alpha1/InitializerConfiguration"] = top(
  "InitializerConfiguration",
  {
    initializers: list(
      struct("Initializer", {
        name: s(),
        rules: list(struct("Rule", ruleFields(false, false)), "[]v1alpha1.Rule"),
      }),
      "[]v1alpha1.Initializer",
    ),
  },
);
