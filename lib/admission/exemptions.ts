/**
 * The exemption matrix: namespaces grouped by distinct label set, then for each group × hook
 * whether the hook's namespaceSelector intercepts it (reference §2.3, §7.1). Grouping first
 * keeps 10,000 namespaces × 1,000 hooks to a few hundred distinct evaluations per hook.
 */
import {
  labelValue,
  requirementMatchesValue,
  selectorMatches,
  type CompiledRequirement,
  type CompiledSelector,
  type Labels,
} from "@/lib/admission/selectors";
import type { CompiledSnapshot } from "@/lib/admission/compile";
import type { HookIdentity } from "@/lib/admission/hook-identity";

const NAME_LABEL = "kubernetes.io/metadata.name";

/** Namespaces that share one exact label set (apart from the automatic name label). */
export interface LabelSetGroup {
  readonly labels: Labels;
  readonly namespaces: readonly string[];
  /** Value of the chosen grouping label (`undefined` when absent). */
  readonly groupValue: string | undefined;
}

/** A hook as a matrix column. */
export interface MatrixHook {
  readonly hook: HookIdentity;
  readonly stage:
    "mutating-webhook" | "validating-webhook" | "mutating-policy" | "validating-policy";
  readonly failurePolicy: "Fail" | "Ignore";
  /** Policy bindings have two selectors: both must match. */
  readonly selectors: readonly CompiledSelector[];
}

/** The matrix: `intercepts[g][h]` is 1 when hook h's namespaceSelector matches label set g. */
export interface ExemptionMatrix {
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
}

/** Reads cell (labelSet g, hook h). */
export function intercepts(m: ExemptionMatrix, g: number, h: number): boolean {
  return m.cells[g * m.hooks.length + h] === 1;
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
export function groupNamespaces(
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

/** The hooks whose namespaceSelector can exempt namespaces, in effective order. */
export function matrixHooks(s: CompiledSnapshot): MatrixHook[] {
  const out: MatrixHook[] = [];
  for (const h of s.mutating)
    out.push({
      hook: h.id,
      stage: "mutating-webhook",
      failurePolicy: h.failurePolicy,
      selectors: [h.match.namespaceSelector],
    });
  for (const h of s.validating)
    out.push({
      hook: h.id,
      stage: "validating-webhook",
      failurePolicy: h.failurePolicy,
      selectors: [h.match.namespaceSelector],
    });
  for (const [stage, list] of [
    ["mutating-policy", s.mutatingPolicies],
    ["validating-policy", s.validatingPolicies],
  ] as const) {
    for (const p of list) {
      if (!p.constraints) continue;
      const sels = [p.constraints.namespaceSelector];
      if (p.bindingMatch) sels.push(p.bindingMatch.namespaceSelector);
      out.push({ hook: p.id, stage, failurePolicy: p.failurePolicy, selectors: sels });
    }
  }
  return out;
}

/**
 * Computes the matrix. Selectors that use `kubernetes.io/metadata.name` make a namespace's own
 * name matter, so such hooks are evaluated per namespace and the group cell is 1 when any
 * namespace in it is intercepted (`partial` lists the mixed groups).
 */
export function exemptionMatrix(
  s: CompiledSnapshot,
  groupBy = "runlevel",
): ExemptionMatrix & {
  readonly partial: ReadonlyArray<{ g: number; h: number; intercepted: readonly string[] }>;
} {
  const labelSets = groupNamespaces(s.namespaces, groupBy);
  const hooks = matrixHooks(s);
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
    const sels = (hooks[h] as MatrixHook).selectors;
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
    .sort(([a], [b]) => (a === undefined ? 1 : b === undefined ? -1 : a < b ? -1 : a > b ? 1 : 0))
    .map(([value, sets]) => ({ value, labelSets: sets }));
  return { groupBy, labelSets, hooks, cells, byGroup, partial };
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
