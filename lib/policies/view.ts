/**
 * View models of admission policies and their bindings for the list and detail pages: which
 * bindings put which policy into force, inert policies, the effective failurePolicy, and where
 * the apiserver's type-checking warnings belong. Pure.
 */
import type { V1LabelSelector, V1NamedRuleWithOperations } from "@/lib/k8s/types";
import type { PolicyResource } from "@/lib/webhooks/resource-kinds";
import { selectorSummary } from "@/lib/webhooks/summary";

export interface MatchResourcesLike {
  namespaceSelector?: V1LabelSelector;
  objectSelector?: V1LabelSelector;
  resourceRules?: V1NamedRuleWithOperations[];
  excludeResourceRules?: V1NamedRuleWithOperations[];
  matchPolicy?: string;
}

export interface PolicyLike {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; uid?: string; resourceVersion?: string; generation?: number };
  spec?: {
    failurePolicy?: string;
    paramKind?: { apiVersion?: string; kind?: string };
    matchConstraints?: MatchResourcesLike;
    matchConditions?: Array<{ name?: string; expression?: string }>;
    variables?: Array<{ name?: string; expression?: string }>;
    validations?: Array<{
      expression?: string;
      message?: string;
      messageExpression?: string;
      reason?: string;
    }>;
    auditAnnotations?: Array<{ key?: string; valueExpression?: string }>;
    mutations?: Array<{
      patchType?: string;
      applyConfiguration?: { expression?: string };
      jsonPatch?: { expression?: string };
    }>;
    reinvocationPolicy?: string;
  };
  status?: {
    observedGeneration?: number;
    typeChecking?: { expressionWarnings?: Array<{ fieldRef?: string; warning?: string }> };
    conditions?: Array<{ type?: string; status?: string; message?: string }>;
  };
}

export interface ParamRefLike {
  name?: string;
  namespace?: string;
  selector?: V1LabelSelector;
  parameterNotFoundAction?: string;
}

export interface BindingLike {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; uid?: string; resourceVersion?: string };
  spec?: {
    policyName?: string;
    validationActions?: string[];
    paramRef?: ParamRefLike;
    matchResources?: MatchResourcesLike;
  };
}

/** Which binding kind binds which policy kind. */
export const BINDING_OF: Record<
  "validatingadmissionpolicies" | "mutatingadmissionpolicies",
  "validatingadmissionpolicybindings" | "mutatingadmissionpolicybindings"
> = {
  validatingadmissionpolicies: "validatingadmissionpolicybindings",
  mutatingadmissionpolicies: "mutatingadmissionpolicybindings",
};

export const POLICY_OF = {
  validatingadmissionpolicybindings: "validatingadmissionpolicies",
  mutatingadmissionpolicybindings: "mutatingadmissionpolicies",
} as const;

export function isBindingResource(
  r: PolicyResource,
): r is "validatingadmissionpolicybindings" | "mutatingadmissionpolicybindings" {
  return r.endsWith("bindings");
}

export interface PolicyRow {
  resource: "validatingadmissionpolicies" | "mutatingadmissionpolicies";
  kind: string;
  name: string;
  /** failurePolicy with the apiserver's default (Fail) applied. */
  failurePolicy: string;
  failurePolicyDefaulted: boolean;
  paramKind?: string;
  bindings: BindingLike[];
  /** No binding names it: the policy is never evaluated. */
  inert: boolean;
  /** Union of the bindings' validationActions (validating policies). */
  actions: string[];
  expressions: number;
  typeWarnings: number;
  resources: string;
}

export interface BindingRow {
  resource: "validatingadmissionpolicybindings" | "mutatingadmissionpolicybindings";
  kind: string;
  name: string;
  policyName: string;
  policyExists: boolean;
  actions: string[];
  paramRef: string;
  scope: string;
}

/** `CREATE,UPDATE pods, apps/deployments` — the resources a set of rules names. */
export function rulesSummary(rules: V1NamedRuleWithOperations[] | undefined): string {
  if (!rules || rules.length === 0) return "nothing";
  return rules
    .map((r) => {
      const groups = r.apiGroups ?? [];
      const res = (r.resources ?? [])
        .map((x) =>
          groups.length === 1 && groups[0] !== "" && groups[0] !== "*" ? `${groups[0]}/${x}` : x,
        )
        .join(", ");
      const names = r.resourceNames?.length ? ` named ${r.resourceNames.join(", ")}` : "";
      return `${(r.operations ?? []).join(",")} ${res}${names}`;
    })
    .join("; ");
}

/**
 * Where a binding narrows its policy, in one line. A binding's matchResources without
 * resourceRules keeps every resource the policy matches (only its selectors narrow).
 */
export function bindingScope(mr: MatchResourcesLike | undefined): string {
  if (!mr) return "all the policy matches";
  const parts = [
    mr.resourceRules?.length ? rulesSummary(mr.resourceRules) : "all the policy matches",
  ];
  const ns = selectorSummary(mr.namespaceSelector);
  if (ns !== "all") parts.push(`namespaces {${ns}}`);
  const obj = selectorSummary(mr.objectSelector);
  if (obj !== "all") parts.push(`objects {${obj}}`);
  if (mr.excludeResourceRules?.length)
    parts.push(`except ${rulesSummary(mr.excludeResourceRules)}`);
  return parts.join(" · ");
}

/** paramRef in one line. */
export function paramRefSummary(ref: ParamRefLike | undefined): string {
  if (!ref) return "—";
  const where = ref.namespace ? `${ref.namespace}/` : "";
  const what = ref.name
    ? `${where}${ref.name}`
    : `${where}{${Object.entries(ref.selector?.matchLabels ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .concat((ref.selector?.matchExpressions ?? []).map((e) => `${e.key} ${e.operator}`))
        .join(", ")}}`;
  return `${what} (not found: ${ref.parameterNotFoundAction ?? "Deny"})`;
}

function expressionCount(p: PolicyLike): number {
  const s = p.spec ?? {};
  return (
    (s.validations?.length ?? 0) +
    (s.mutations?.length ?? 0) +
    (s.auditAnnotations?.length ?? 0) +
    (s.matchConditions?.length ?? 0) +
    (s.variables?.length ?? 0)
  );
}

/** Rows for the policies table, each with the bindings that name it. */
export function policyRows(
  kinds: Array<{
    resource: string;
    kind: string;
    items: ReadonlyArray<PolicyLike | BindingLike> | undefined;
  }>,
): { policies: PolicyRow[]; bindings: BindingRow[] } {
  const policies: PolicyRow[] = [];
  const bindings: BindingRow[] = [];
  for (const pr of ["validatingadmissionpolicies", "mutatingadmissionpolicies"] as const) {
    const pk = kinds.find((k) => k.resource === pr);
    const bk = kinds.find((k) => k.resource === BINDING_OF[pr]);
    const ps = (pk?.items ?? []) as PolicyLike[];
    const bs = (bk?.items ?? []) as BindingLike[];
    const byPolicy = new Map<string, BindingLike[]>();
    for (const b of bs) {
      const n = b.spec?.policyName ?? "";
      byPolicy.set(n, [...(byPolicy.get(n) ?? []), b]);
    }
    for (const p of ps) {
      const name = p.metadata?.name ?? "";
      const bound = byPolicy.get(name) ?? [];
      const fp = p.spec?.failurePolicy;
      policies.push({
        resource: pr,
        kind: pk?.kind ?? p.kind ?? "",
        name,
        failurePolicy: fp ?? "Fail",
        failurePolicyDefaulted: fp === undefined,
        paramKind: p.spec?.paramKind?.kind
          ? `${p.spec.paramKind.kind} (${p.spec.paramKind.apiVersion ?? ""})`
          : undefined,
        bindings: bound,
        inert: bound.length === 0,
        actions: [...new Set(bound.flatMap((b) => b.spec?.validationActions ?? []))].sort(),
        expressions: expressionCount(p),
        typeWarnings: p.status?.typeChecking?.expressionWarnings?.length ?? 0,
        resources: rulesSummary(p.spec?.matchConstraints?.resourceRules),
      });
    }
    const names = new Set(ps.map((p) => p.metadata?.name ?? ""));
    for (const b of bs) {
      const mr = b.spec?.matchResources;
      bindings.push({
        resource: BINDING_OF[pr],
        kind: bk?.kind ?? b.kind ?? "",
        name: b.metadata?.name ?? "",
        policyName: b.spec?.policyName ?? "",
        policyExists: names.has(b.spec?.policyName ?? ""),
        actions: b.spec?.validationActions ?? [],
        paramRef: paramRefSummary(b.spec?.paramRef),
        scope: bindingScope(mr),
      });
    }
  }
  const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : 1);
  return { policies: policies.sort(byName), bindings: bindings.sort(byName) };
}

/**
 * The apiserver's type-checking warnings that concern one field path of the policy
 * (`spec.validations[0].expression`), so they can be shown where the expression is.
 */
export function warningsAt(p: PolicyLike, fieldRef: string): string[] {
  return (p.status?.typeChecking?.expressionWarnings ?? [])
    .filter((w) => w.fieldRef === fieldRef)
    .map((w) => w.warning ?? "");
}
