/**
 * Views over the exemption matrix for the namespaces pages: rows of namespaces grouped by the
 * chosen label, each cell's deciding selector requirement, and the per-namespace and per-hook
 * summaries. Pure.
 */
import {
  EXEMPT,
  INTERCEPTED,
  NOT_MATCHED,
  compareGroupValues,
  type ExemptionMatrix,
  type MatrixHook,
  type MatrixRequest,
} from "@/lib/admission/exemptions/exemptions";
import {
  explainSelectorMismatch,
  labelValue,
  requirementMatchesValue,
  requirementText,
  type Labels,
} from "@/lib/admission/model/selectors";

/** A row of the matrix: a group heading or a namespace. */
export type MatrixRow =
  | { readonly kind: "group"; readonly value: string | undefined; readonly count: number }
  | {
      readonly kind: "namespace";
      readonly name: string;
      /** Label-set index into the matrix. */
      readonly g: number;
      readonly value: string | undefined;
    };

/** Namespaces in group order (0, 1, 2, …, then unlabelled), by name inside a group. */
export function matrixRows(
  m: ExemptionMatrix,
  keep: (name: string) => boolean = () => true,
): MatrixRow[] {
  const out: MatrixRow[] = [];
  for (const group of m.byGroup) {
    const names: Array<{ name: string; g: number }> = [];
    for (const g of group.labelSets) {
      for (const name of m.labelSets[g]?.namespaces ?? []) if (keep(name)) names.push({ name, g });
    }
    if (names.length === 0) continue;
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    out.push({ kind: "group", value: group.value, count: names.length });
    for (const n of names)
      out.push({ kind: "namespace", name: n.name, g: n.g, value: group.value });
  }
  return out;
}

/** Looks up cells per namespace, taking name-dependent selectors into account. */
export interface CellReader {
  (name: string, g: number, h: number): number;
}

/** A cell reader for the matrix (builds the per-namespace exceptions once). */
export function cellReader(m: ExemptionMatrix): CellReader {
  const H = m.hooks.length;
  const partial = new Map<number, ReadonlySet<string>>();
  for (const p of m.partial) partial.set(p.g * H + p.h, new Set(p.intercepted));
  return (name, g, h) => {
    const i = g * H + h;
    const v = m.cells[i] ?? NOT_MATCHED;
    if (v !== INTERCEPTED) return v;
    const only = partial.get(i);
    return only && !only.has(name) ? EXEMPT : v;
  };
}

/** Why one cell is what it is. */
export interface CellExplanation {
  readonly state: "intercepted" | "exempt" | "not-matched";
  /** The deciding requirement(s) in apimachinery's text form, e.g. `runlevel notin (0,1)`. */
  readonly requirement: string;
  /** A sentence about the namespace's labels. */
  readonly detail: string;
}

/** `pods CREATE`, `deployments.apps UPDATE`, `pods/exec CONNECT`. */
export function describeRequest(r: MatrixRequest): string {
  const resource = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  return `${r.group === "" ? resource : `${resource}.${r.group}`} ${r.operation}`;
}

function holds(key: string, operator: string, actual: string | undefined): string {
  const shown = actual === undefined ? "absent" : `"${actual}"`;
  switch (operator) {
    case "Exists":
      return `label ${key} is present (${shown})`;
    case "DoesNotExist":
      return `label ${key} is absent`;
    case "NotIn":
      return `label ${key} is ${shown}, which is not in the list`;
    default:
      return `label ${key} is ${shown}`;
  }
}

/** Explains cell (namespace, hook) from the namespace's full labels. */
export function explainCell(
  m: ExemptionMatrix,
  hook: MatrixHook,
  state: number,
  name: string,
  labels: Labels,
): CellExplanation {
  if (state === NOT_MATCHED)
    return {
      state: "not-matched",
      requirement: hook.never?.by ?? "rules",
      detail: hook.never
        ? `${hook.hook.name} is never called for ${describeRequest(m.request)}: ${hook.never.reason}`
        : `${hook.hook.name}'s rules do not match ${describeRequest(m.request)}`,
    };
  if (m.request.scope === "Cluster")
    return {
      state: "intercepted",
      requirement: "cluster-scoped",
      detail: `${describeRequest(m.request)} is cluster-scoped: a namespaceSelector never exempts it`,
    };
  const where = m.request.scope === "Namespace" ? "the Namespace object" : `namespace ${name}`;
  if (state === EXEMPT) {
    for (const [i, sel] of hook.selectors.entries()) {
      const miss = explainSelectorMismatch(sel, labels)[0];
      if (!miss) continue;
      const r = sel.requirements.find((x) => x.key === miss.key && x.operator === miss.operator);
      return {
        state: "exempt",
        requirement: r ? requirementText(r) : sel.text || "<nothing>",
        detail: `${i === 1 ? "binding's namespaceSelector: " : ""}${miss.message} (on ${where})`,
      };
    }
    // Only a name-dependent requirement can exempt one namespace of a matching label set.
    return { state: "exempt", requirement: "kubernetes.io/metadata.name", detail: `${where}` };
  }
  const reqs = hook.selectors.flatMap((s) => s.requirements);
  const note = hook.conditional
    ? "; an objectSelector, matchConditions or resourceNames may still skip some objects"
    : "";
  if (reqs.length === 0)
    return {
      state: "intercepted",
      requirement: "{}",
      detail: `the namespaceSelector is empty: it matches every namespace${note}`,
    };
  const passing = reqs.filter((r) => requirementMatchesValue(r, labelValue(labels, r.key)));
  return {
    state: "intercepted",
    requirement: passing.map(requirementText).join(", "),
    detail: `${passing.map((r) => holds(r.key, r.operator, labelValue(labels, r.key))).join("; ")} (on ${where})${note}`,
  };
}

/** One hook as the per-namespace view lists it. */
export interface NamespaceHookEntry {
  readonly index: number;
  readonly hook: MatrixHook;
  readonly why: CellExplanation;
}

/** Which hooks intercept writes in one namespace (call order) and which exempt it, and why. */
export function namespaceView(
  m: ExemptionMatrix,
  name: string,
  labels: Labels,
): {
  readonly g: number;
  readonly intercepting: NamespaceHookEntry[];
  readonly exempting: NamespaceHookEntry[];
  readonly notMatched: number;
} {
  const g = m.labelSets.findIndex((s) => s.namespaces.includes(name));
  const read = cellReader(m);
  const intercepting: NamespaceHookEntry[] = [];
  const exempting: NamespaceHookEntry[] = [];
  let notMatched = 0;
  if (g < 0) return { g, intercepting, exempting, notMatched };
  m.hooks.forEach((hook, h) => {
    const state = read(name, g, h);
    if (state === NOT_MATCHED) {
      notMatched++;
      return;
    }
    const entry = { index: h, hook, why: explainCell(m, hook, state, name, labels) };
    (state === INTERCEPTED ? intercepting : exempting).push(entry);
  });
  return { g, intercepting, exempting, notMatched };
}

/** The namespaces one hook covers and exempts, per value of the grouping label. */
export function hookView(
  m: ExemptionMatrix,
  h: number,
): Array<{ value: string | undefined; covered: string[]; exempt: string[] }> {
  const read = cellReader(m);
  const out: Array<{ value: string | undefined; covered: string[]; exempt: string[] }> = [];
  for (const group of m.byGroup) {
    const covered: string[] = [];
    const exempt: string[] = [];
    for (const g of group.labelSets) {
      for (const name of m.labelSets[g]?.namespaces ?? []) {
        const v = read(name, g, h);
        if (v === INTERCEPTED) covered.push(name);
        else if (v === EXEMPT) exempt.push(name);
      }
    }
    covered.sort();
    exempt.sort();
    if (covered.length + exempt.length > 0) out.push({ value: group.value, covered, exempt });
  }
  return out.sort((a, b) => compareGroupValues(a.value, b.value));
}

/** Fail-closed hooks that intercept a namespace (for calling out unlabelled new namespaces). */
export function failClosedInterceptors(m: ExemptionMatrix, name: string): MatrixHook[] {
  const g = m.labelSets.findIndex((s) => s.namespaces.includes(name));
  if (g < 0) return [];
  const read = cellReader(m);
  return m.hooks.filter(
    (hook, h) => hook.failurePolicy === "Fail" && read(name, g, h) === INTERCEPTED,
  );
}

/** Columns grouped by configuration (consecutive hooks of one configuration or policy). */
export function columnGroups(
  hooks: ReadonlyArray<{ readonly hook: Pick<MatrixHook["hook"], "source" | "configuration"> }>,
  indices: readonly number[],
): Array<{ source: string; configuration: string; start: number; count: number }> {
  const out: Array<{ source: string; configuration: string; start: number; count: number }> = [];
  indices.forEach((h, pos) => {
    const id = hooks[h]?.hook;
    if (!id) return;
    const last = out[out.length - 1];
    if (last && last.source === id.source && last.configuration === id.configuration) last.count++;
    else out.push({ source: id.source, configuration: id.configuration, start: pos, count: 1 });
  });
  return out;
}
