/**
 * The objects each engine writes, built the way its source code builds them: for tests, the
 * benchmark and seeded demos where the engine itself does not run. Each builder names the file it
 * follows (Gatekeeper v3.23.1, Kyverno v1.19.1, kubewarden-controller at 3460bb71). Hooks are
 * given narrow, fail-open rules unless told otherwise, so seeding them cannot break a cluster.
 */
import type {
  V1MutatingWebhookConfiguration,
  V1ValidatingAdmissionPolicy,
  V1ValidatingAdmissionPolicyBinding,
  V1ValidatingWebhook,
  V1ValidatingWebhookConfiguration,
} from "@/lib/k8s/types";

/** The engines' default namespaces (their charts' defaults). @public */
export const ENGINE_NAMESPACE = {
  kyverno: "kyverno",
  gatekeeper: "gatekeeper-system",
  kubewarden: "kubewarden",
} as const;

type Rules = V1ValidatingWebhook["rules"];
type Meta = NonNullable<V1ValidatingWebhookConfiguration["metadata"]>;
type OwnerRef = NonNullable<Meta["ownerReferences"]>[number];

/** Options every hook builder takes. */
export interface HookOptions {
  /** Default: CREATE/UPDATE of configmaps in the group `engines.portcullis.test` (nothing real). */
  readonly rules?: Rules;
  /** Default Ignore (fail-open). */
  readonly failurePolicy?: "Fail" | "Ignore";
  readonly namespaceSelector?: V1ValidatingWebhook["namespaceSelector"];
  readonly timeoutSeconds?: number;
  readonly caBundle?: string;
}

const HARMLESS_RULES: Rules = [
  {
    operations: ["CREATE", "UPDATE"],
    apiGroups: ["engines.portcullis.test"],
    apiVersions: ["v1"],
    resources: ["configmaps"],
  },
];

function hook(
  name: string,
  service: { namespace: string; name: string; path: string; port?: number },
  o: HookOptions,
  failurePolicy: "Fail" | "Ignore" = o.failurePolicy ?? "Ignore",
): V1ValidatingWebhook {
  return {
    name,
    clientConfig: {
      service: {
        namespace: service.namespace,
        name: service.name,
        path: service.path,
        port: service.port ?? 443,
      },
      ...(o.caBundle ? { caBundle: o.caBundle } : {}),
    },
    rules: o.rules ?? HARMLESS_RULES,
    failurePolicy,
    sideEffects: "NoneOnDryRun",
    admissionReviewVersions: ["v1"],
    ...(o.namespaceSelector ? { namespaceSelector: o.namespaceSelector } : {}),
    ...(o.timeoutSeconds !== undefined ? { timeoutSeconds: o.timeoutSeconds } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Kyverno

/**
 * `kyverno-resource-validating-webhook-cfg` as pkg/controllers/webhook/controller.go and
 * validating.go write it: label `webhook.kyverno.io/managed-by: kyverno` (utils.go objectMeta),
 * an owner reference to Kyverno's `*:webhook` ClusterRole (buildOwner) when `owner` is given, the
 * shared `validate.kyverno.svc-fail`/`-ignore` hooks (path `/validate/fail`, `/validate/ignore`),
 * one fine-grained hook per ClusterPolicy in `fineGrained` (`…-fail-finegrained-<name>`, path
 * `/validate/fail/finegrained/<name>`), and one shared ValidatingPolicy hook for `validatingPolicies`
 * (`vpol.validate.kyverno.svc-fail`, path `/vpol/<names sorted>`).
 */
export function kyvernoResourceValidatingConfiguration(
  opts: HookOptions & {
    readonly namespace?: string;
    readonly owner?: { readonly name: string; readonly uid: string };
    readonly fineGrained?: readonly string[];
    readonly validatingPolicies?: readonly string[];
  } = {},
): V1ValidatingWebhookConfiguration {
  const svc = { namespace: opts.namespace ?? ENGINE_NAMESPACE.kyverno, name: "kyverno-svc" };
  const webhooks: V1ValidatingWebhook[] = [
    hook("validate.kyverno.svc-ignore", { ...svc, path: "/validate/ignore" }, opts, "Ignore"),
    hook("validate.kyverno.svc-fail", { ...svc, path: "/validate/fail" }, opts),
    ...(opts.fineGrained ?? []).map((p) =>
      hook(
        `validate.kyverno.svc-fail-finegrained-${p}`,
        { ...svc, path: `/validate/fail/finegrained/${p}` },
        opts,
      ),
    ),
  ];
  const vpols = [...(opts.validatingPolicies ?? [])].sort();
  if (vpols.length > 0)
    webhooks.push(
      hook("vpol.validate.kyverno.svc-fail", { ...svc, path: `/vpol/${vpols.join("/")}` }, opts),
    );
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: {
      name: "kyverno-resource-validating-webhook-cfg",
      labels: { "webhook.kyverno.io/managed-by": "kyverno" },
      ...(opts.owner
        ? {
            ownerReferences: [
              {
                apiVersion: "rbac.authorization.k8s.io/v1",
                kind: "ClusterRole",
                name: opts.owner.name,
                uid: opts.owner.uid,
              },
            ],
          }
        : {}),
    },
    webhooks,
  };
}

/**
 * The ValidatingAdmissionPolicy Kyverno generates from a ClusterPolicy (`cpol-<name>`) or a
 * ValidatingPolicy (`vpol-<name>`): pkg/controllers/admissionpolicygenerator/generate-vap.go names
 * it, pkg/admissionpolicy/builder.go BuildValidatingAdmissionPolicy sets the owner reference
 * (the policy's apiVersion, kind, name, uid) and `app.kubernetes.io/managed-by: kyverno`.
 */
export function kyvernoGeneratedPolicy(source: {
  readonly kind: "ClusterPolicy" | "ValidatingPolicy";
  readonly name: string;
  readonly uid: string;
  readonly apiVersion?: string;
  readonly expression?: string;
}): V1ValidatingAdmissionPolicy {
  const prefix = source.kind === "ClusterPolicy" ? "cpol-" : "vpol-";
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: {
      name: `${prefix}${source.name}`,
      labels: { "app.kubernetes.io/managed-by": "kyverno" },
      ownerReferences: [kyvernoOwner(source)],
    },
    spec: {
      failurePolicy: "Ignore",
      matchConstraints: { resourceRules: HARMLESS_RESOURCE_RULES },
      validations: [{ expression: source.expression ?? "true" }],
    },
  };
}

/** Its binding `<policy>-binding` (utils.go constructBindingName; builder.go BuildValidatingAdmissionPolicyBinding). */
export function kyvernoGeneratedBinding(source: {
  readonly kind: "ClusterPolicy" | "ValidatingPolicy";
  readonly name: string;
  readonly uid: string;
  readonly apiVersion?: string;
}): V1ValidatingAdmissionPolicyBinding {
  const policyName = `${source.kind === "ClusterPolicy" ? "cpol-" : "vpol-"}${source.name}`;
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: {
      name: `${policyName}-binding`,
      labels: { "app.kubernetes.io/managed-by": "kyverno" },
      ownerReferences: [kyvernoOwner(source)],
    },
    spec: { policyName, validationActions: ["Deny"] },
  };
}

function kyvernoOwner(source: {
  kind: string;
  name: string;
  uid: string;
  apiVersion?: string;
}): OwnerRef {
  return {
    apiVersion:
      source.apiVersion ??
      (source.kind === "ClusterPolicy" ? "kyverno.io/v1" : "policies.kyverno.io/v1"),
    kind: source.kind,
    name: source.name,
    uid: source.uid,
  };
}

const HARMLESS_RESOURCE_RULES = [
  {
    operations: ["CREATE", "UPDATE"],
    apiGroups: ["engines.portcullis.test"],
    apiVersions: ["v1"],
    resources: ["configmaps"],
  },
];

/** A Kyverno ClusterPolicy (api/kyverno/v1) with one validate rule. */
export function kyvernoClusterPolicy(opts: {
  readonly name: string;
  readonly uid?: string;
  readonly failureAction?: "Audit" | "Enforce";
  readonly admission?: boolean;
  readonly background?: boolean;
  readonly generated?: { readonly generated: boolean; readonly message: string };
}): Record<string, unknown> {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: opts.name, ...(opts.uid ? { uid: opts.uid } : {}) },
    spec: {
      ...(opts.admission !== undefined ? { admission: opts.admission } : {}),
      ...(opts.background !== undefined ? { background: opts.background } : {}),
      rules: [
        {
          name: "check",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          validate: {
            failureAction: opts.failureAction ?? "Enforce",
            cel: { expressions: [{ expression: "has(object.metadata.labels)" }] },
          },
        },
      ],
    },
    ...(opts.generated ? { status: { validatingadmissionpolicy: opts.generated } } : {}),
  };
}

/** A Kyverno ValidatingPolicy (policies.kyverno.io/v1; github.com/kyverno/api validating_policy.go). */
export function kyvernoValidatingPolicy(opts: {
  readonly name: string;
  readonly uid?: string;
  readonly generateVAP?: boolean;
  readonly generated?: boolean;
  readonly message?: string;
}): Record<string, unknown> {
  return {
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name: opts.name, ...(opts.uid ? { uid: opts.uid } : {}) },
    spec: {
      validationActions: ["Deny"],
      matchConstraints: { resourceRules: HARMLESS_RESOURCE_RULES },
      validations: [{ expression: "true" }],
      ...(opts.generateVAP !== undefined
        ? { autogen: { validatingAdmissionPolicy: { enabled: opts.generateVAP } } }
        : {}),
    },
    ...(opts.generated !== undefined
      ? {
          status: {
            generated: opts.generated,
            conditionStatus: { message: opts.message ?? "" },
          },
        }
      : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Gatekeeper

/**
 * `gatekeeper-validating-webhook-configuration` as deploy/gatekeeper.yaml installs it (label
 * `gatekeeper.sh/system: "yes"`): `validation.gatekeeper.sh` (pkg/webhook/policy.go, path
 * `/v1/admit`) and `check-ignore-label.gatekeeper.sh` (pkg/webhook/namespacelabel.go, path
 * `/v1/admitlabel`), served by `gatekeeper-webhook-service`.
 */
export function gatekeeperValidatingConfiguration(
  opts: HookOptions & { readonly namespace?: string } = {},
): V1ValidatingWebhookConfiguration {
  const svc = {
    namespace: opts.namespace ?? ENGINE_NAMESPACE.gatekeeper,
    name: "gatekeeper-webhook-service",
  };
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: {
      name: "gatekeeper-validating-webhook-configuration",
      labels: { "gatekeeper.sh/system": "yes" },
    },
    webhooks: [
      hook("validation.gatekeeper.sh", { ...svc, path: "/v1/admit" }, opts),
      hook("check-ignore-label.gatekeeper.sh", { ...svc, path: "/v1/admitlabel" }, opts),
    ],
  };
}

/**
 * The ValidatingAdmissionPolicy `gatekeeper-<template>` (pkg/drivers/k8scel/transform/
 * make_vap_objects.go TemplateToPolicyDefinition; paramKind the Constraint kind in
 * constraints.gatekeeper.sh/v1beta1), owned by its template through a controller reference
 * (pkg/controller/constrainttemplate/constrainttemplate_controller.go SetControllerReference).
 */
export function gatekeeperGeneratedPolicy(template: {
  readonly name: string;
  readonly kind: string;
  readonly uid?: string;
}): V1ValidatingAdmissionPolicy {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: {
      name: `gatekeeper-${template.name}`,
      ...(template.uid
        ? {
            ownerReferences: [
              {
                apiVersion: "templates.gatekeeper.sh/v1beta1",
                kind: "ConstraintTemplate",
                name: template.name,
                uid: template.uid,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
    },
    spec: {
      paramKind: { apiVersion: "constraints.gatekeeper.sh/v1beta1", kind: template.kind },
      failurePolicy: "Ignore",
      matchConstraints: { resourceRules: HARMLESS_RESOURCE_RULES },
      validations: [{ expression: "true" }],
    },
  };
}

/**
 * The binding `gatekeeper-<kind>-<constraint>` (make_vap_objects.go ConstraintToBinding,
 * GetVAPBindingName), owned by the Constraint (constraint_controller.go SetControllerReference);
 * deny → Deny, warn → Warn, dryrun → Audit.
 */
export function gatekeeperGeneratedBinding(constraint: {
  readonly kind: string;
  readonly name: string;
  readonly uid?: string;
  readonly actions?: readonly ("deny" | "warn" | "dryrun")[];
}): V1ValidatingAdmissionPolicyBinding {
  const lower = constraint.kind.toLowerCase();
  const map = { deny: "Deny", warn: "Warn", dryrun: "Audit" } as const;
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: {
      name: `gatekeeper-${lower}-${constraint.name}`,
      ...(constraint.uid
        ? {
            ownerReferences: [
              {
                apiVersion: "constraints.gatekeeper.sh/v1beta1",
                kind: constraint.kind,
                name: constraint.name,
                uid: constraint.uid,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
    },
    spec: {
      policyName: `gatekeeper-${lower}`,
      paramRef: { name: constraint.name, parameterNotFoundAction: "Allow" },
      matchResources: {},
      validationActions: (constraint.actions ?? ["deny"]).map((a) => map[a]),
    },
  };
}

/** A ConstraintTemplate (templates.gatekeeper.sh/v1) with VAP-style CEL, and its status. */
export function gatekeeperTemplate(opts: {
  readonly name: string;
  readonly kind: string;
  readonly uid?: string;
  readonly generateVAP?: boolean;
  readonly vapState?: { readonly state: "generated" | "error"; readonly warning?: string };
}): Record<string, unknown> {
  return {
    apiVersion: "templates.gatekeeper.sh/v1",
    kind: "ConstraintTemplate",
    metadata: { name: opts.name, ...(opts.uid ? { uid: opts.uid } : {}) },
    spec: {
      crd: { spec: { names: { kind: opts.kind } } },
      targets: [
        {
          target: "admission.k8s.gatekeeper.sh",
          code: [
            {
              engine: "K8sNativeValidation",
              source: {
                ...(opts.generateVAP !== undefined ? { generateVAP: opts.generateVAP } : {}),
                validations: [{ expression: "true", message: "denied" }],
              },
            },
          ],
        },
      ],
    },
    status: {
      created: true,
      byPod: [
        {
          id: "gatekeeper-controller-manager-0",
          observedGeneration: 1,
          ...(opts.vapState
            ? { vapGenerationStatus: { ...opts.vapState, observedGeneration: 1 } }
            : {}),
        },
      ],
    },
  };
}

/** A Constraint of `kind` (constraints.gatekeeper.sh/v1beta1). */
export function gatekeeperConstraint(opts: {
  readonly kind: string;
  readonly name: string;
  readonly uid?: string;
  readonly enforcementAction?: string;
  readonly scoped?: ReadonlyArray<{ readonly action: string; readonly points: readonly string[] }>;
  readonly totalViolations?: number;
}): Record<string, unknown> {
  return {
    apiVersion: "constraints.gatekeeper.sh/v1beta1",
    kind: opts.kind,
    metadata: { name: opts.name, ...(opts.uid ? { uid: opts.uid } : {}) },
    spec: {
      ...(opts.enforcementAction ? { enforcementAction: opts.enforcementAction } : {}),
      ...(opts.scoped
        ? {
            scopedEnforcementActions: opts.scoped.map((s) => ({
              action: s.action,
              enforcementPoints: s.points.map((name) => ({ name })),
            })),
          }
        : {}),
      match: { kinds: [{ apiGroups: [""], kinds: ["Pod"] }] },
    },
    ...(opts.totalViolations !== undefined
      ? { status: { totalViolations: opts.totalViolations } }
      : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Kubewarden

/**
 * The configuration Kubewarden writes for one policy
 * (internal/controller/policy_subreconciler_webhook.go): named by GetUniqueName
 * (`clusterwide-<name>`, `namespaced-<ns>-<name>`), label `app.kubernetes.io/part-of: kubewarden`,
 * annotations `kubewardenPolicyName`/`kubewardenPolicyNamespace`, one hook
 * `<unique name>.kubewarden.admission` calling the policy server `policy-server-<server>` at
 * `/validate/<unique name>`, no owner reference.
 */
export function kubewardenPolicyConfiguration(
  policy: {
    readonly name: string;
    readonly namespace?: string;
    readonly policyServer?: string;
    readonly mutating?: boolean;
  },
  opts: HookOptions & { readonly controllerNamespace?: string } = {},
): V1ValidatingWebhookConfiguration & V1MutatingWebhookConfiguration {
  const unique = policy.namespace
    ? `namespaced-${policy.namespace}-${policy.name}`
    : `clusterwide-${policy.name}`;
  const ns = opts.controllerNamespace ?? ENGINE_NAMESPACE.kubewarden;
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: policy.mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration",
    metadata: {
      name: unique,
      labels: { "app.kubernetes.io/part-of": "kubewarden" },
      annotations: {
        kubewardenPolicyName: policy.name,
        kubewardenPolicyNamespace: policy.namespace ?? "",
      },
    },
    webhooks: [
      hook(
        `${unique}.kubewarden.admission`,
        {
          namespace: ns,
          name: `policy-server-${policy.policyServer ?? "default"}`,
          path: `/validate/${unique}`,
        },
        // Cluster-wide policies skip the controller's namespace unless allowed (namespaceSelector()).
        {
          ...opts,
          namespaceSelector:
            opts.namespaceSelector ??
            (policy.namespace
              ? undefined
              : {
                  matchExpressions: [
                    { key: "kubernetes.io/metadata.name", operator: "NotIn", values: [ns] },
                  ],
                }),
          timeoutSeconds: opts.timeoutSeconds ?? 10,
        },
      ),
    ],
  };
}

/** A Kubewarden ClusterAdmissionPolicy or AdmissionPolicy (policies.kubewarden.io/v1). */
export function kubewardenPolicy(opts: {
  readonly name: string;
  readonly namespace?: string;
  readonly mode?: "protect" | "monitor";
  readonly timeoutSeconds?: number;
  readonly timeoutEvalSeconds?: number;
}): Record<string, unknown> {
  return {
    apiVersion: "policies.kubewarden.io/v1",
    kind: opts.namespace ? "AdmissionPolicy" : "ClusterAdmissionPolicy",
    metadata: { name: opts.name, ...(opts.namespace ? { namespace: opts.namespace } : {}) },
    spec: {
      policyServer: "default",
      module: "file:///policies/safe-labels.wasm",
      mode: opts.mode ?? "protect",
      rules: HARMLESS_RESOURCE_RULES,
      mutating: false,
      ...(opts.timeoutSeconds !== undefined ? { timeoutSeconds: opts.timeoutSeconds } : {}),
      ...(opts.timeoutEvalSeconds !== undefined
        ? { timeoutEvalSeconds: opts.timeoutEvalSeconds }
        : {}),
    },
    status: { policyStatus: "active", mode: opts.mode ?? "protect" },
  };
}
