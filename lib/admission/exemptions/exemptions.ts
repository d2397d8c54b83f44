/**
 * The exemption matrix: namespaces grouped by distinct label set, then for each group × hook
 * whether the hook intercepts a chosen request (resource and operation) in that namespace
 * (reference §2.3, §2.5, §7.1): the hook's rules must match the request, and its
 * namespaceSelector the namespace's labels. Grouping first keeps 10,000 namespaces × 1,000 hooks
 * to a few hundred distinct evaluations per distinct selector.
 */
import {
  labelValue,
  requirementMatchesValue,
  selectorMatches,
  type CompiledRequirement,
  type CompiledSelector,
  type Labels,
} from "@/lib/admission/model/selectors";
import type { CompiledMatchResources, CompiledSnapshot } from "@/lib/admission/matching/compile";
import {
  ruleMatches,
  type CompiledRule,
  type RuleAttributes,
} from "@/lib/admission/model/rule-matcher";
import type { HookIdentity } from "@/lib/admission/model/hook-identity";

const NAME_LABEL = "kubernetes.io/metadata.name";

/** Namespaces that share one exact label set (apart from the automatic name label). */
interface LabelSetGroup {
  readonly labels: Labels;
  readonly namespaces: readonly string[];
  /** Value of the chosen grouping label (`undefined` when absent). */
  readonly groupValue: string | undefined;
}

/** The request the matrix is for: one resource and operation, written in every namespace. */
export interface MatrixRequest {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  /** A CONNECT's subresource (`exec`, `proxy`, …): CONNECT reaches only subresources. */
  readonly subresource?: string;
  /**
   * Namespaced resource (the selector sees the containing namespace), `namespaces` (the selector
   * sees the Namespace object's own labels), or cluster-scoped (the selector never applies).
   */
  readonly scope: "Namespaced" | "Namespace" | "Cluster";
}

/** The matrix's default request: creating a Pod. */
export const POD_CREATE: MatrixRequest = {
  group: "",
  version: "v1",
  resource: "pods",
  operation: "CREATE",
  scope: "Namespaced",
};

/** Cell values: the selector exempts the namespace, the hook intercepts it, or its rules do not match. */
export const EXEMPT = 0;
export const INTERCEPTED = 1;
export const NOT_MATCHED = 2;

/** A hook as a matrix column. */
export interface MatrixHook {
  readonly hook: HookIdentity;
  readonly stage:
    "mutating-webhook" | "validating-webhook" | "mutating-policy" | "validating-policy";
  readonly failurePolicy: "Fail" | "Ignore";
  /** Policy bindings have two selectors: both must match. */
  readonly selectors: readonly CompiledSelector[];
  /** Whether the hook's rules match the matrix's request at all (and it can be called for it). */
  readonly applies: boolean;
  /**
   * Why the hook is never called for the request although its rules match it (then `applies` is
   * false): an objectSelector on a CONNECT, whose options object has no labels to match; a
   * mutating policy on a DELETE.
   */
  readonly never:
    { readonly by: "objectSelector" | "operation"; readonly reason: string } | undefined;
  /**
   * An objectSelector, matchConditions or resourceNames can still skip individual objects: an
   * intercepted cell means "called unless those say otherwise".
   */
  readonly conditional: boolean;
  /** Webhooks only (policies run in process). */
  readonly timeoutSeconds: number | undefined;
}

/** The matrix: `cells[g * hooks.length + h]` is EXEMPT, INTERCEPTED or NOT_MATCHED. */
export interface ExemptionMatrix {
  readonly request: MatrixRequest;
  readonly groupBy: string;
  readonly labelSets: readonly LabelSetGroup[];
  readonly hooks: readonly MatrixHook[];
  /** Row-major: `cells[g * hooks.length + h]`. */
  readonly cells: Uint8Array;
  /** Rows of label sets per value of the grouping label, in value order (absent last). */
  readonly byGroup: ReadonlyArray<{
    readonly value: string | undefined;
    readonly labelSets: readonly number[];
  }>;
  /**
   * Cells where the selector names namespaces (`kubernetes.io/metadata.name`), so only some
   * namespaces of the label set are intercepted: those are listed; the cell reads INTERCEPTED.
   */
  readonly partial: ReadonlyArray<{ g: number; h: number; intercepted: readonly string[] }>;
}

// The automatic name label makes every set unique, so it is left out of the key.
function labelSetKey(labels: Labels): string {
  const keys = Object.keys(labels);
  // Insertion sort: label sets are small, and this orders exactly as the default sort does.
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = key;
  }
  let k = "";
  for (const key of keys) {
    if (key !== NAME_LABEL) k += `${key}\u0000${labels[key] ?? ""}\u0001`;
  }
  return k;
}

function withoutName(labels: Labels): Labels {
  const out: Record<string, string> = {};
  for (const key of Object.keys(labels)) if (key !== NAME_LABEL) out[key] = labels[key] ?? "";
  return out;
}

/** Groups namespaces by identical label sets, ignoring the automatic name label. */
function groupNamespaces(
  namespaces: ReadonlyMap<string, Labels> | Readonly<Record<string, Labels>>,
  groupBy = "runlevel",
): LabelSetGroup[] {
  const entries = namespaces instanceof Map ? namespaces.entries() : Object.entries(namespaces);
  const byKey = new Map<string, { labels: Labels; namespaces: string[] }>();
  for (const [name, labels] of entries as Iterable<[string, Labels]>) {
    const key = labelSetKey(labels);
    const g = byKey.get(key);
    if (g) g.namespaces.push(name);
    else byKey.set(key, { labels: withoutName(labels), namespaces: [name] });
  }
  return [...byKey.values()].map((g) => ({ ...g, groupValue: labelValue(g.labels, groupBy) }));
}

function attributesOf(r: MatrixRequest): RuleAttributes {
  return {
    operation: r.operation,
    group: r.group,
    version: r.version,
    resource: r.resource,
    subresource: r.subresource ?? "",
    // Only emptiness matters to the scope test; a Namespace request names itself.
    namespace: r.scope === "Cluster" ? "" : "x",
    name: "",
  };
}

function anyRule(
  rules: readonly CompiledRule[],
  a: RuleAttributes,
  s: CompiledSnapshot,
  m: CompiledMatchResources,
): boolean {
  for (const rule of rules) if (ruleMatches(rule, a)) return true;
  if (m.matchPolicy !== "Equivalent") return false;
  // matchPolicy Equivalent: the rules may name another version of the same resource.
  for (const eq of s.equivalence.equivalentsFor(
    { group: a.group, version: a.version, resource: a.resource },
    a.subresource,
  )) {
    const b = { ...a, group: eq.gvr.group, version: eq.gvr.version, resource: eq.gvr.resource };
    for (const rule of rules) if (ruleMatches(rule, b)) return true;
  }
  return false;
}

/**
 * Webhook rules, or a policy's constraints / binding resources (no rules: everything). An
 * exclusion that names objects (resourceNames) leaves out only those: the hook still applies to
 * the rest (the column is conditional, see namesObjects).
 */
function resourcesApply(
  m: CompiledMatchResources,
  a: RuleAttributes,
  s: CompiledSnapshot,
  policy: boolean,
): boolean {
  const excludeAll = m.excludeRules.filter((r) => r.resourceNames.length === 0);
  if (excludeAll.length > 0 && anyRule(excludeAll, a, s, m)) return false;
  if (policy && m.rules.length === 0) return true;
  return anyRule(m.rules, a, s, m);
}

/** The hooks as matrix columns, in call order (mutating policies, mutating webhooks, then validating). */
function matrixHooks(s: CompiledSnapshot, request: MatrixRequest = POD_CREATE): MatrixHook[] {
  const a = attributesOf(request);
  const out: MatrixHook[] = [];
  // object/matcher.go: an object without metadata (a CONNECT's options) matches no objectSelector
  // but the empty one, so such a hook is never called for a CONNECT.
  const blind = (selectors: ReadonlyArray<CompiledMatchResources | undefined>) =>
    request.operation === "CONNECT" &&
    selectors.some((m) => m !== undefined && !m.objectSelector.empty)
      ? ({
          by: "objectSelector",
          reason:
            "its objectSelector never matches a CONNECT: the options object it would read has no labels",
        } as const)
      : undefined;
  const webhooks = (stage: MatrixHook["stage"], list: CompiledSnapshot["mutating"]) => {
    for (const h of list) {
      const rules = resourcesApply(h.match, a, s, false);
      const never = rules ? blind([h.match]) : undefined;
      out.push({
        hook: h.id,
        stage,
        failurePolicy: h.failurePolicy,
        selectors: [h.match.namespaceSelector],
        applies: rules && never === undefined,
        never,
        conditional: !h.match.objectSelector.empty || h.conditions.length > 0,
        timeoutSeconds: h.timeoutSeconds,
      });
    }
  };
  const policies = (stage: MatrixHook["stage"], list: CompiledSnapshot["mutatingPolicies"]) => {
    for (const p of list) {
      if (!p.constraints) continue;
      const sels = [p.constraints.namespaceSelector];
      if (p.bindingMatch) sels.push(p.bindingMatch.namespaceSelector);
      // Rules or exclusions that name objects decide per object: the cell may not hold for all.
      const named = (m: CompiledMatchResources | undefined) =>
        m !== undefined &&
        (m.rules.some((r) => r.resourceNames.length > 0) ||
          m.excludeRules.some((r) => r.resourceNames.length > 0 && ruleMatches(r, a)));
      const rules =
        resourcesApply(p.constraints, a, s, true) &&
        (!p.bindingMatch || resourcesApply(p.bindingMatch, a, s, true));
      // policy/mutating/plugin.go registers for CREATE, UPDATE and CONNECT: a "*" rule that
      // matches a DELETE is never consulted for it.
      const never = !rules
        ? undefined
        : stage === "mutating-policy" && request.operation === "DELETE"
          ? ({
              by: "operation",
              reason: "mutating admission policies are never consulted for DELETE",
            } as const)
          : blind([p.constraints, p.bindingMatch]);
      out.push({
        hook: p.id,
        stage,
        failurePolicy: p.failurePolicy,
        selectors: sels,
        applies: rules && never === undefined,
        never,
        conditional:
          !p.constraints.objectSelector.empty ||
          (p.bindingMatch !== undefined && !p.bindingMatch.objectSelector.empty) ||
          p.conditions.length > 0 ||
          named(p.constraints) ||
          named(p.bindingMatch),
        timeoutSeconds: undefined,
      });
    }
  };
  policies("mutating-policy", s.mutatingPolicies);
  webhooks("mutating-webhook", s.mutating);
  policies("validating-policy", s.validatingPolicies);
  webhooks("validating-webhook", s.validating);
  return out;
}

/** Orders grouping-label values: whole numbers numerically (0, 1, 2, 10), then the rest by text. */
export function compareGroupValues(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  const na = /^\d{1,15}$/.test(a) ? Number(a) : undefined;
  const nb = /^\d{1,15}$/.test(b) ? Number(b) : undefined;
  if (na !== undefined && nb !== undefined) return na - nb || (a < b ? -1 : 1);
  if (na !== undefined) return -1;
  if (nb !== undefined) return 1;
  return a < b ? -1 : 1;
}

/**
 * Computes the matrix. Selectors that use `kubernetes.io/metadata.name` make a namespace's own
 * name matter, so such hooks are evaluated per namespace and the group cell is 1 when any
 * namespace in it is intercepted (`partial` lists the mixed groups).
 */
export function exemptionMatrix(
  s: CompiledSnapshot,
  groupBy = "runlevel",
  request: MatrixRequest = POD_CREATE,
): ExemptionMatrix {
  const labelSets = groupNamespaces(s.namespaces, groupBy);
  const hooks = matrixHooks(s, request);
  const H = hooks.length;
  const cells = new Uint8Array(labelSets.length * H);
  const partial: Array<{ g: number; h: number; intercepted: string[] }> = [];
  const columns = new Map<string, Uint8Array>();
  // Hooks with the same name-dependent selectors share their per-namespace evaluation too.
  const splitColumns = new Map<
    string,
    { column: Uint8Array; partial: Array<{ g: number; intercepted: string[] }> }
  >();
  for (let h = 0; h < H; h++) {
    const hook = hooks[h] as MatrixHook;
    // Rules that do not match, or a cluster-scoped resource (no selector applies): one value.
    if (!hook.applies || request.scope === "Cluster") {
      const v = hook.applies ? INTERCEPTED : NOT_MATCHED;
      for (let g = 0; g < labelSets.length; g++) cells[g * H + h] = v;
      continue;
    }
    const sels = hook.selectors;
    // Hooks often share selectors (the runlevel convention): evaluate each distinct one once.
    const key = sels
      .map((x) => (x.error ? `!${x.error}` : x.nothing ? "<nothing>" : JSON.stringify(x)))
      .join("\u0002");
    const split = splitByName(sels);
    if (!split) {
      let column = columns.get(key);
      if (!column) {
        column = new Uint8Array(labelSets.length);
        for (let g = 0; g < labelSets.length; g++) {
          const labels = (labelSets[g] as LabelSetGroup).labels;
          let ok = true;
          for (const sel of sels) if (!selectorMatches(sel, labels)) ok = false;
          column[g] = ok ? 1 : 0;
        }
        columns.set(key, column);
      }
      for (let g = 0; g < labelSets.length; g++) cells[g * H + h] = column[g] as number;
      continue;
    }
    let shared = splitColumns.get(key);
    if (!shared) {
      shared = { column: new Uint8Array(labelSets.length), partial: [] };
      for (let g = 0; g < labelSets.length; g++) {
        const set = labelSets[g] as LabelSetGroup;
        if (split.impossible || !selectorMatches(split.rest, set.labels)) continue;
        const hit: string[] = [];
        for (const ns of set.namespaces) {
          let ok = true;
          for (const r of split.byName) if (!requirementMatchesValue(r, ns)) ok = false;
          if (ok) hit.push(ns);
        }
        shared.column[g] = hit.length > 0 ? 1 : 0;
        if (hit.length > 0 && hit.length < set.namespaces.length) {
          shared.partial.push({ g, intercepted: hit });
        }
      }
      splitColumns.set(key, shared);
    }
    const column = shared.column;
    for (let g = 0; g < labelSets.length; g++) cells[g * H + h] = column[g] as number;
    for (const x of shared.partial) partial.push({ g: x.g, h, intercepted: x.intercepted.slice() });
  }
  const groups = new Map<string | undefined, number[]>();
  labelSets.forEach((set, g) => {
    const list = groups.get(set.groupValue);
    if (list) list.push(g);
    else groups.set(set.groupValue, [g]);
  });
  const byGroup = [...groups.entries()]
    .sort(([a], [b]) => compareGroupValues(a, b))
    .map(([value, sets]) => ({ value, labelSets: sets }));
  return { request, groupBy, labelSets, hooks, cells, byGroup, partial };
}

/** Splits selectors into requirements on the automatic name label and a selector for the rest. */
function splitByName(
  sels: readonly CompiledSelector[],
): { byName: CompiledRequirement[]; rest: CompiledSelector; impossible: boolean } | undefined {
  const byName: CompiledRequirement[] = [];
  const rest: CompiledRequirement[] = [];
  let impossible = false;
  for (const sel of sels) {
    if (sel.nothing) impossible = true;
    for (const r of sel.requirements) (r.key === NAME_LABEL ? byName : rest).push(r);
  }
  if (byName.length === 0) return undefined;
  return {
    byName,
    rest: {
      empty: rest.length === 0,
      nothing: false,
      requirements: rest,
      error: undefined,
      text: "",
    },
    impossible,
  };
}
