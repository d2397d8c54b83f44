/**
 * The engines' own policies, read from their custom resources as the apiserver returns them
 * (unstructured JSON) into one normalised shape per family. An object of an engine's kind in a
 * version this reader does not know becomes an `unrecognised` entry with the reason: never a
 * throw, so a cluster running a newer engine still shows everything else.
 *
 * Field names and defaults are the engines' Go API types:
 * - Gatekeeper v3.23.1: ConstraintTemplate in open-policy-agent/frameworks/constraint
 *   pkg/apis/templates/v1beta1/constrainttemplate_types.go (status.byPod, filled from
 *   apis/status/v1beta1/constrainttemplatepodstatus_types.go with vapGenerationStatus by
 *   pkg/controller/constrainttemplatestatus/constrainttemplatestatus_controller.go); Constraints'
 *   enforcement actions in pkg/util/enforcement_action.go; totalViolations written by
 *   pkg/audit/manager.go; served versions in frameworks pkg/client/crds/crds.go (constraints) and
 *   config/crd/bases/constrainttemplate-customresourcedefinition.yaml (templates).
 * - Kyverno v1.19.1: ClusterPolicy/Policy in api/kyverno/v1/spec_types.go, rule_types.go,
 *   common_types.go (validate.failureAction), policy_status.go (status.validatingadmissionpolicy);
 *   the CEL policies in github.com/kyverno/api api/policies.kyverno.io/v1alpha1
 *   validating_policy.go, mutating_policy.go, common.go (aliased by v1beta1 and v1); served
 *   versions in config/crds/.
 * - Kubewarden (kubewarden-controller at 3460bb71): api/policies/v1/policy_types.go (PolicySpec,
 *   GroupSpec, PolicyGroupMember), policy.go (PolicyStatus); served versions in
 *   charts/kubewarden-crds/templates/crds/.
 */
import type { EngineName, SourcePolicyRef } from "@/lib/admission/engines/types";
import {
  bool,
  field,
  groupOf,
  list,
  metaOf,
  num,
  record,
  str,
  stringMap,
  strings,
  versionOf,
} from "@/lib/admission/engines/unstructured";

/** What every source policy has. */
interface SourceBase {
  readonly ref: SourcePolicyRef;
  readonly uid?: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** A Gatekeeper ConstraintTemplate. @public */
export interface GatekeeperTemplate extends SourceBase {
  readonly type: "gatekeeper-template";
  /** The Constraint kind it creates (`spec.crd.spec.names.kind`). */
  readonly constraintKind: string;
  /** A target carries VAP-style CEL (`engine: K8sNativeValidation`): it can become a VAP. */
  readonly hasCel: boolean;
  /** `generateVAP` on the CEL source, when set; else the controller's default decides. */
  readonly generateVAP?: boolean;
  readonly created?: boolean;
  /** Each pod's `vapGenerationStatus` (state `generated` or `error`, and the warning). */
  readonly vapGeneration: ReadonlyArray<{
    readonly pod?: string;
    readonly state: string;
    readonly warning?: string;
    readonly observedGeneration?: number;
  }>;
  /** The pods' errors creating the template (messages). */
  readonly errors: readonly string[];
}

/** The enforcement points Gatekeeper names (pkg/util/enforcement_action.go). */
export const GATEKEEPER_WEBHOOK_POINT = "validation.gatekeeper.sh";
const GATEKEEPER_VAP_POINT = "vap.k8s.io";
const GATEKEEPER_AUDIT_POINT = "audit.gatekeeper.sh";

/** A Gatekeeper Constraint (any kind in constraints.gatekeeper.sh). */
export interface GatekeeperConstraint extends SourceBase {
  readonly type: "gatekeeper-constraint";
  /** `spec.enforcementAction`, `deny` when unset (GetEnforcementAction); `unrecognized` otherwise. */
  readonly enforcementAction: string;
  readonly scopedEnforcementActions: ReadonlyArray<{
    readonly action: string;
    readonly enforcementPoints: readonly string[];
  }>;
  /** The actions that apply at the webhook, at the generated VAP binding, and in audit. */
  readonly actions: {
    readonly webhook: readonly string[];
    readonly vap: readonly string[];
    readonly audit: readonly string[];
  };
  readonly totalViolations?: number;
  readonly auditTimestamp?: string;
  /** Each pod's enforcement point states (`status.byPod[].enforcementPointsStatus`). */
  readonly enforcementPoints: ReadonlyArray<{
    readonly point: string;
    readonly state: string;
    readonly message?: string;
  }>;
}

/** A Kyverno validation failure action. @public */
export type KyvernoAction = "Audit" | "Enforce";

/** A Kyverno ClusterPolicy or Policy (kyverno.io). */
export interface KyvernoPolicy extends SourceBase {
  readonly type: "kyverno-policy";
  /** `spec.validationFailureAction` normalised (Audit when unset, as the CRD defaults it). */
  readonly validationFailureAction: KyvernoAction;
  readonly rules: ReadonlyArray<{
    readonly name: string;
    readonly type: "validate" | "mutate" | "generate" | "verifyImages" | "other";
    /** `validate.failureAction`, else the policy's. */
    readonly failureAction?: KyvernoAction;
  }>;
  /** `spec.admission` (default true). */
  readonly admission: boolean;
  /** `spec.background` (default true). */
  readonly background: boolean;
  /** `spec.webhookConfiguration.failurePolicy`, else the deprecated `spec.failurePolicy`; Fail. */
  readonly failurePolicy: "Fail" | "Ignore";
  readonly webhookTimeoutSeconds?: number;
  /** `status.validatingadmissionpolicy`: was a ValidatingAdmissionPolicy generated, and why not. */
  readonly generation?: { readonly generated: boolean; readonly message: string };
}

/** A Kyverno CEL policy (policies.kyverno.io): ValidatingPolicy, MutatingPolicy, … @public */
export interface KyvernoCelPolicy extends SourceBase {
  readonly type: "kyverno-cel-policy";
  /** `spec.validationActions` (Deny when unset); empty for kinds without it. */
  readonly validationActions: readonly string[];
  /** `spec.evaluation.admission.enabled` (default true). */
  readonly admission: boolean;
  /** `spec.evaluation.background.enabled` (default true). */
  readonly background: boolean;
  /** `spec.autogen.validatingAdmissionPolicy.enabled` / `mutatingAdmissionPolicy.enabled`. */
  readonly generateAdmissionPolicy: boolean;
  readonly failurePolicy: "Fail" | "Ignore";
  readonly webhookTimeoutSeconds?: number;
  /** `status.generated` and the reason in `status.conditionStatus.message`. */
  readonly generation?: { readonly generated: boolean; readonly message: string };
}

/** A Kubewarden (Cluster)AdmissionPolicy or policy group. @public */
export interface KubewardenPolicy extends SourceBase {
  readonly type: "kubewarden-policy";
  readonly group: boolean;
  /** `spec.mode`, protect when unset. */
  readonly mode: string;
  readonly policyServer: string;
  /** `spec.timeoutSeconds`, 10 when unset (the CRD default). */
  readonly timeoutSeconds: number;
  readonly timeoutEvalSeconds?: number;
  readonly failurePolicy: "Fail" | "Ignore";
  readonly mutating: boolean;
  /** Group members with their own evaluation timeouts. */
  readonly members: ReadonlyArray<{ readonly name: string; readonly timeoutEvalSeconds?: number }>;
  readonly status?: string;
  readonly statusMode?: string;
}

export type EngineSourcePolicy =
  GatekeeperTemplate | GatekeeperConstraint | KyvernoPolicy | KyvernoCelPolicy | KubewardenPolicy;

/** An engine object this reader cannot read, and why. */
export interface UnrecognisedEngineObject {
  readonly type: "unrecognised";
  readonly engine: EngineName;
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly reason: string;
}

/** The engines' policies of one cluster. */
export interface EngineSources {
  readonly policies: readonly EngineSourcePolicy[];
  readonly unrecognised: readonly UnrecognisedEngineObject[];
}

/** One policy kind an engine serves, and the versions this reader knows. */
export interface EngineSourceKind {
  readonly engine: EngineName;
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** Known versions, preferred first. */
  readonly versions: readonly string[];
}

export const GATEKEEPER_TEMPLATES_GROUP = "templates.gatekeeper.sh";
export const GATEKEEPER_CONSTRAINTS_GROUP = "constraints.gatekeeper.sh";
export const KYVERNO_GROUP = "kyverno.io";
export const KYVERNO_POLICIES_GROUP = "policies.kyverno.io";
export const KUBEWARDEN_GROUP = "policies.kubewarden.io";

/** Constraint versions (frameworks pkg/client/crds/crds.go: v1beta1 stored, v1alpha1 served). */
const GATEKEEPER_CONSTRAINT_VERSIONS = ["v1beta1", "v1alpha1"] as const;

const CEL_CLUSTER_VERSIONS = ["v1", "v1beta1", "v1alpha1"];
const CEL_NAMESPACED_VERSIONS = ["v1", "v1beta1"];

/**
 * The engines' policy kinds (Constraints are any kind of constraints.gatekeeper.sh, found by
 * discovery). Versions are those the engines' CRDs serve (see the file comment). @public
 */
export const ENGINE_SOURCE_KINDS: readonly EngineSourceKind[] = [
  {
    engine: "gatekeeper",
    group: GATEKEEPER_TEMPLATES_GROUP,
    kind: "ConstraintTemplate",
    plural: "constrainttemplates",
    namespaced: false,
    versions: ["v1", "v1beta1", "v1alpha1"],
  },
  ...(
    [
      ["ClusterPolicy", "clusterpolicies", false],
      ["Policy", "policies", true],
    ] as const
  ).map(([kind, plural, namespaced]) => ({
    engine: "kyverno" as const,
    group: KYVERNO_GROUP,
    kind,
    plural,
    namespaced,
    versions: ["v1", "v2beta1"],
  })),
  ...(
    [
      ["ValidatingPolicy", "validatingpolicies", false],
      ["NamespacedValidatingPolicy", "namespacedvalidatingpolicies", true],
      ["MutatingPolicy", "mutatingpolicies", false],
      ["NamespacedMutatingPolicy", "namespacedmutatingpolicies", true],
      ["ImageValidatingPolicy", "imagevalidatingpolicies", false],
      ["NamespacedImageValidatingPolicy", "namespacedimagevalidatingpolicies", true],
      ["GeneratingPolicy", "generatingpolicies", false],
      ["NamespacedGeneratingPolicy", "namespacedgeneratingpolicies", true],
      ["DeletingPolicy", "deletingpolicies", false],
      ["NamespacedDeletingPolicy", "namespaceddeletingpolicies", true],
    ] as const
  ).map(([kind, plural, namespaced]) => ({
    engine: "kyverno" as const,
    group: KYVERNO_POLICIES_GROUP,
    kind,
    plural,
    namespaced,
    versions: namespaced ? CEL_NAMESPACED_VERSIONS : CEL_CLUSTER_VERSIONS,
  })),
  ...(
    [
      ["ClusterAdmissionPolicy", "clusteradmissionpolicies", false, ["v1", "v1alpha2"]],
      ["AdmissionPolicy", "admissionpolicies", true, ["v1", "v1alpha2"]],
      ["ClusterAdmissionPolicyGroup", "clusteradmissionpolicygroups", false, ["v1"]],
      ["AdmissionPolicyGroup", "admissionpolicygroups", true, ["v1"]],
    ] as const
  ).map(([kind, plural, namespaced, versions]) => ({
    engine: "kubewarden" as const,
    group: KUBEWARDEN_GROUP,
    kind,
    plural,
    namespaced,
    versions,
  })),
];

/** group → kind → the kind (lookups by the objects' own strings, no key built per call). */
const KIND_INDEX = new Map<string, Map<string, EngineSourceKind>>();
for (const k of ENGINE_SOURCE_KINDS) {
  const byKind = KIND_INDEX.get(k.group) ?? new Map<string, EngineSourceKind>();
  byKind.set(k.kind, k);
  KIND_INDEX.set(k.group, byKind);
}
/** Constraint kinds met so far (any kind of the group is one). */
const CONSTRAINT_KINDS = new Map<string, EngineSourceKind>();

/** The engine a policy kind belongs to, and its preferred apiVersion (for refs built from names). */
export function sourceKindOf(group: string, kind: string): EngineSourceKind | undefined {
  if (group === GATEKEEPER_CONSTRAINTS_GROUP) {
    let k = CONSTRAINT_KINDS.get(kind);
    if (!k) {
      k = {
        engine: "gatekeeper",
        group,
        kind,
        plural: kind.toLowerCase(),
        namespaced: false,
        versions: GATEKEEPER_CONSTRAINT_VERSIONS,
      };
      if (CONSTRAINT_KINDS.size < 10_000) CONSTRAINT_KINDS.set(kind, k);
    }
    return k;
  }
  return KIND_INDEX.get(group)?.get(kind);
}

/** The engine an API group belongs to. */
export function engineOfGroup(group: string): EngineName | undefined {
  if (group === GATEKEEPER_TEMPLATES_GROUP || group === GATEKEEPER_CONSTRAINTS_GROUP)
    return "gatekeeper";
  if (group === KYVERNO_GROUP || group === KYVERNO_POLICIES_GROUP) return "kyverno";
  if (group === KUBEWARDEN_GROUP) return "kubewarden";
  return undefined;
}

const failurePolicyOf = (x: unknown): "Fail" | "Ignore" => (x === "Ignore" ? "Ignore" : "Fail");

function kyvernoAction(x: unknown): KyvernoAction | undefined {
  // api/kyverno/v1/spec_types.go: Enforce/enforce block, Audit/audit report.
  if (x === "Enforce" || x === "enforce") return "Enforce";
  if (x === "Audit" || x === "audit") return "Audit";
  return undefined;
}

function gatekeeperTemplate(raw: unknown, base: SourceBase): GatekeeperTemplate {
  const targets = list(field(raw, "spec", "targets"));
  let hasCel = false;
  let generateVAP: boolean | undefined;
  for (const t of targets)
    for (const c of list(field(t, "code")))
      if (field(c, "engine") === "K8sNativeValidation") {
        hasCel = true;
        const g = bool(field(c, "source", "generateVAP"));
        if (g !== undefined) generateVAP = g;
      }
  const byPod = list(field(raw, "status", "byPod"));
  const created = bool(field(raw, "status", "created"));
  return {
    type: "gatekeeper-template",
    ...base,
    constraintKind: str(field(raw, "spec", "crd", "spec", "names", "kind")) ?? "",
    hasCel,
    ...(generateVAP !== undefined ? { generateVAP } : {}),
    ...(created !== undefined ? { created } : {}),
    vapGeneration: byPod.flatMap((p) => {
      const v = record(field(p, "vapGenerationStatus"));
      if (!v) return [];
      const pod = str(field(p, "id"));
      const warning = str(v["warning"]);
      const observedGeneration = num(v["observedGeneration"]);
      return [
        {
          ...(pod ? { pod } : {}),
          state: str(v["state"]) ?? "",
          ...(warning ? { warning } : {}),
          ...(observedGeneration !== undefined ? { observedGeneration } : {}),
        },
      ];
    }),
    errors: byPod.flatMap((p) =>
      list(field(p, "errors")).flatMap((e) => {
        const m = str(field(e, "message"));
        return m ? [m] : [];
      }),
    ),
  };
}

function gatekeeperConstraint(raw: unknown, base: SourceBase): GatekeeperConstraint {
  const spec = str(field(raw, "spec", "enforcementAction")) ?? "";
  // pkg/util/enforcement_action.go GetEnforcementAction: empty is deny; others unrecognized.
  const action =
    spec === ""
      ? "deny"
      : ["deny", "dryrun", "warn", "scoped"].includes(spec)
        ? spec
        : "unrecognized";
  const scoped = list(field(raw, "spec", "scopedEnforcementActions")).flatMap((s) => {
    const a = str(field(s, "action"));
    if (!a) return [];
    return [
      {
        action: a,
        enforcementPoints: list(field(s, "enforcementPoints")).flatMap((p) => {
          const n = str(field(p, "name"));
          return n ? [n] : [];
        }),
      },
    ];
  });
  const at = (point: string): string[] => {
    if (action !== "scoped") return action === "unrecognized" ? [] : [action];
    // ScopedActionForEP: an action applies where a point names it, or names "*".
    return scoped
      .filter((s) => s.enforcementPoints.some((p) => p === point || p === "*"))
      .map((s) => s.action);
  };
  const total = num(field(raw, "status", "totalViolations"));
  const ts = str(field(raw, "status", "auditTimestamp"));
  return {
    type: "gatekeeper-constraint",
    ...base,
    enforcementAction: action,
    scopedEnforcementActions: scoped,
    actions: {
      webhook: at(GATEKEEPER_WEBHOOK_POINT),
      vap: at(GATEKEEPER_VAP_POINT),
      audit: at(GATEKEEPER_AUDIT_POINT),
    },
    ...(total !== undefined ? { totalViolations: total } : {}),
    ...(ts ? { auditTimestamp: ts } : {}),
    enforcementPoints: list(field(raw, "status", "byPod")).flatMap((p) =>
      list(field(p, "enforcementPointsStatus")).flatMap((e) => {
        const point = str(field(e, "enforcementPoint"));
        if (!point) return [];
        const message = str(field(e, "message"));
        return [{ point, state: str(field(e, "state")) ?? "", ...(message ? { message } : {}) }];
      }),
    ),
  };
}

function kyvernoPolicy(raw: unknown, base: SourceBase): KyvernoPolicy {
  const spec = record(field(raw, "spec")) ?? {};
  const policyAction = kyvernoAction(spec["validationFailureAction"]) ?? "Audit";
  const rules = list(spec["rules"]).map((r) => {
    const type = record(field(r, "validate"))
      ? ("validate" as const)
      : record(field(r, "mutate"))
        ? ("mutate" as const)
        : record(field(r, "generate"))
          ? ("generate" as const)
          : list(field(r, "verifyImages")).length > 0
            ? ("verifyImages" as const)
            : ("other" as const);
    const failureAction =
      type === "validate"
        ? (kyvernoAction(field(r, "validate", "failureAction")) ?? policyAction)
        : undefined;
    return { name: str(field(r, "name")) ?? "", type, ...(failureAction ? { failureAction } : {}) };
  });
  const timeout =
    num(field(spec, "webhookTimeoutSeconds")) ??
    num(field(spec, "webhookConfiguration", "timeoutSeconds"));
  const vap = record(field(raw, "status", "validatingadmissionpolicy"));
  return {
    type: "kyverno-policy",
    ...base,
    validationFailureAction: policyAction,
    rules,
    admission: bool(spec["admission"]) ?? true,
    background: bool(spec["background"]) ?? true,
    failurePolicy: failurePolicyOf(
      field(spec, "webhookConfiguration", "failurePolicy") ?? spec["failurePolicy"],
    ),
    ...(timeout !== undefined ? { webhookTimeoutSeconds: timeout } : {}),
    ...(vap
      ? {
          generation: {
            generated: bool(vap["generated"]) ?? false,
            message: str(vap["message"]) ?? "",
          },
        }
      : {}),
  };
}

function kyvernoCelPolicy(raw: unknown, base: SourceBase): KyvernoCelPolicy {
  const spec = record(field(raw, "spec")) ?? {};
  const kind = base.ref.kind;
  const validating = /ValidatingPolicy$/.test(kind);
  const mutating = /MutatingPolicy$/.test(kind);
  const actions = strings(spec["validationActions"]);
  const generate = validating
    ? bool(field(spec, "autogen", "validatingAdmissionPolicy", "enabled"))
    : mutating
      ? bool(field(spec, "autogen", "mutatingAdmissionPolicy", "enabled"))
      : undefined;
  const timeout = num(field(spec, "webhookConfiguration", "timeoutSeconds"));
  const status = record(field(raw, "status"));
  const generated = bool(status?.["generated"]);
  return {
    type: "kyverno-cel-policy",
    ...base,
    validationActions: validating ? (actions.length > 0 ? actions : ["Deny"]) : actions,
    admission: bool(field(spec, "evaluation", "admission", "enabled")) ?? true,
    background: bool(field(spec, "evaluation", "background", "enabled")) ?? true,
    generateAdmissionPolicy: generate ?? false,
    failurePolicy: failurePolicyOf(spec["failurePolicy"]),
    ...(timeout !== undefined ? { webhookTimeoutSeconds: timeout } : {}),
    ...(generated !== undefined
      ? {
          generation: {
            generated,
            message: str(field(status, "conditionStatus", "message")) ?? "",
          },
        }
      : {}),
  };
}

function kubewardenPolicy(raw: unknown, base: SourceBase): KubewardenPolicy {
  const spec = record(field(raw, "spec")) ?? {};
  const group = base.ref.kind.endsWith("Group");
  const evalTimeout = num(spec["timeoutEvalSeconds"]);
  const members = Object.entries(record(spec["policies"]) ?? {}).map(([name, m]) => {
    const t = num(field(m, "timeoutEvalSeconds"));
    return { name, ...(t !== undefined ? { timeoutEvalSeconds: t } : {}) };
  });
  const status = str(field(raw, "status", "policyStatus"));
  const statusMode = str(field(raw, "status", "mode"));
  return {
    type: "kubewarden-policy",
    ...base,
    group,
    mode: str(spec["mode"]) || "protect",
    policyServer: str(spec["policyServer"]) || "default",
    timeoutSeconds: num(spec["timeoutSeconds"]) ?? 10,
    ...(evalTimeout !== undefined ? { timeoutEvalSeconds: evalTimeout } : {}),
    failurePolicy: failurePolicyOf(spec["failurePolicy"]),
    mutating: bool(spec["mutating"]) ?? false,
    members,
    ...(status ? { status } : {}),
    ...(statusMode ? { statusMode } : {}),
  };
}

/**
 * One object read as an engine policy: the policy, `unrecognised` with a reason (an engine's
 * kind in a version not known here, or an object too malformed to read), or undefined when it is
 * not an engine policy at all (a Deployment, a Kubewarden PolicyServer, a Kyverno report, …).
 */
export function parseEngineObject(
  raw: unknown,
): EngineSourcePolicy | UnrecognisedEngineObject | undefined {
  const apiVersion = str(field(raw, "apiVersion")) ?? "";
  const kind = str(field(raw, "kind")) ?? "";
  const group = groupOf(apiVersion);
  const engine = engineOfGroup(group);
  if (!engine) return undefined;
  const known = sourceKindOf(group, kind);
  if (!known) return undefined;
  const meta = metaOf(raw);
  const unrecognised = (reason: string): UnrecognisedEngineObject => ({
    type: "unrecognised",
    engine,
    apiVersion,
    kind,
    ...(meta.namespace ? { namespace: meta.namespace } : {}),
    name: meta.name,
    reason,
  });
  const version = versionOf(apiVersion);
  if (!known.versions.includes(version))
    return unrecognised(
      `${kind} is read in ${known.versions.map((v) => `${group}/${v}`).join(", ")}; this object is ${apiVersion}`,
    );
  if (!meta.name) return unrecognised("the object has no metadata.name");
  if (field(raw, "spec") !== undefined && !record(field(raw, "spec")))
    return unrecognised("spec is not an object");
  const base: SourceBase = {
    ref: {
      engine,
      apiVersion,
      kind,
      ...(known.namespaced && meta.namespace ? { namespace: meta.namespace } : {}),
      name: meta.name,
    },
    ...(meta.uid ? { uid: meta.uid } : {}),
    labels: stringMap(meta.labels),
  };
  if (group === GATEKEEPER_TEMPLATES_GROUP) return gatekeeperTemplate(raw, base);
  if (group === GATEKEEPER_CONSTRAINTS_GROUP) return gatekeeperConstraint(raw, base);
  if (group === KYVERNO_GROUP) return kyvernoPolicy(raw, base);
  if (group === KYVERNO_POLICIES_GROUP) return kyvernoCelPolicy(raw, base);
  return kubewardenPolicy(raw, base);
}

/** Many objects (a List's items, a YAML bundle's documents) read as engine policies. */
export function parseEngineObjects(raws: readonly unknown[]): EngineSources {
  const policies: EngineSourcePolicy[] = [];
  const unrecognised: UnrecognisedEngineObject[] = [];
  for (const raw of raws) {
    // A List (kind: XList) contributes its items.
    const items = field(raw, "items");
    if (Array.isArray(items) && /List$/.test(str(field(raw, "kind")) ?? "")) {
      const inner = parseEngineObjects(items);
      policies.push(...inner.policies);
      unrecognised.push(...inner.unrecognised);
      continue;
    }
    const p = parseEngineObject(raw);
    if (!p) continue;
    if (p.type === "unrecognised") unrecognised.push(p);
    else policies.push(p);
  }
  return { policies, unrecognised };
}

/** One engine collection to list: a served group/version/resource and its kind. */
export interface EngineCollection {
  readonly engine: EngineName;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

/**
 * The engine collections a cluster serves, from its discovery: each engine policy kind once, in
 * the first version this reader knows (else the first served, whose objects then read as
 * unrecognised), and every kind of constraints.gatekeeper.sh. Empty on a cluster without engines.
 */
export function engineCollections(
  discovery: ReadonlyArray<{
    readonly group: string;
    readonly version: string;
    readonly resource: string;
    readonly kind: string;
    readonly namespaced: boolean;
  }>,
): EngineCollection[] {
  const served = new Map<string, Array<(typeof discovery)[number]>>();
  for (const d of discovery) {
    if (d.resource.includes("/") || !engineOfGroup(d.group)) continue;
    const known = sourceKindOf(d.group, d.kind);
    if (!known) continue;
    const k = `${d.group}/${d.kind}`;
    served.set(k, [...(served.get(k) ?? []), d]);
  }
  const out: EngineCollection[] = [];
  for (const versions of served.values()) {
    const first = versions[0]!;
    const known = sourceKindOf(first.group, first.kind)!;
    const pick =
      known.versions.map((v) => versions.find((d) => d.version === v)).find((d) => d) ?? first;
    out.push({
      engine: known.engine,
      group: pick.group,
      version: pick.version,
      resource: pick.resource,
      kind: pick.kind,
      namespaced: pick.namespaced,
    });
  }
  return out;
}

/** No engines. */
export const NO_ENGINE_SOURCES: EngineSources = { policies: [], unrecognised: [] };
