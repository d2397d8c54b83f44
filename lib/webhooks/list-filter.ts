/**
 * The list's view state (kept in the URL) and the pure sort/filter/search over rows.
 */
import type { HookRow } from "./summary";

type ListView = "hooks" | "configs";
export type SortKey =
  | "kind"
  | "configuration"
  | "hook"
  | "failurePolicy"
  | "timeout"
  | "sideEffects"
  | "matchPolicy"
  | "backend"
  | "ca"
  | "findings";

export interface ListState {
  view: ListView;
  q: string;
  kind: string;
  failurePolicy: string;
  /** "" | "any" (hooks with findings) | a severity. */
  findings: string;
  sort: SortKey;
  desc: boolean;
}

const SORT_KEYS: readonly SortKey[] = [
  "kind",
  "configuration",
  "hook",
  "failurePolicy",
  "timeout",
  "sideEffects",
  "matchPolicy",
  "backend",
  "ca",
  "findings",
];

/** Reads the state from URL search params, ignoring anything unknown. */
export function parseListState(p: URLSearchParams): ListState {
  const sort = p.get("sort") ?? "";
  return {
    view: p.get("view") === "configs" ? "configs" : "hooks",
    q: p.get("q") ?? "",
    kind: p.get("kind") ?? "",
    failurePolicy: p.get("fp") ?? "",
    findings: p.get("findings") ?? "",
    sort: (SORT_KEYS as readonly string[]).includes(sort) ? (sort as SortKey) : "configuration",
    desc: p.get("dir") === "desc",
  };
}

/** The state as a query string, leaving defaults out so URLs stay short. */
export function listStateQuery(s: ListState): string {
  const p = new URLSearchParams();
  if (s.view !== "hooks") p.set("view", s.view);
  if (s.q) p.set("q", s.q);
  if (s.kind) p.set("kind", s.kind);
  if (s.failurePolicy) p.set("fp", s.failurePolicy);
  if (s.findings) p.set("findings", s.findings);
  if (s.sort !== "configuration") p.set("sort", s.sort);
  if (s.desc) p.set("dir", "desc");
  return p.toString();
}

/** Lint counts per hook row id. */
export type FindingCounts = Readonly<Record<string, Readonly<Record<string, number>>>>;

const SEVERITY_WEIGHT: Record<string, number> = {
  critical: 10000,
  high: 1000,
  medium: 100,
  low: 10,
  info: 1,
};

/** A single number that orders rows by the weight of their findings. */
function findingWeight(counts: Readonly<Record<string, number>> | undefined): number {
  let w = 0;
  for (const [sev, n] of Object.entries(counts ?? {})) w += (SEVERITY_WEIGHT[sev] ?? 0) * n;
  return w;
}

function sortValue(r: HookRow, k: SortKey, findings: FindingCounts): string | number {
  switch (k) {
    case "kind":
      return r.kind;
    case "configuration":
      return r.configuration;
    case "hook":
      return r.hook;
    case "failurePolicy":
      return r.failurePolicy.value;
    case "timeout":
      return r.timeoutSeconds.value;
    case "sideEffects":
      return r.sideEffects;
    case "matchPolicy":
      return r.matchPolicy.value;
    case "backend":
      return r.backend;
    case "ca":
      return r.caNotAfter || "~";
    case "findings":
      return findingWeight(findings[r.id]);
  }
}

/** Collapses hook rows to one row per configuration (values joined where hooks differ). */
export function configRows(rows: readonly HookRow[]): HookRow[] {
  const groups = new Map<string, HookRow[]>();
  for (const r of rows) {
    const k = `${r.kind}/${r.configuration}`;
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  const uniq = (xs: string[]) => [...new Set(xs.filter(Boolean))].join(", ");
  return [...groups.values()].map((g) => {
    const first = g[0] as HookRow;
    const hooks = g.filter((r) => r.position >= 0);
    const cas = hooks.map((r) => r.caNotAfter).filter((c) => c && c !== "invalid");
    return {
      ...first,
      id: `${first.kind}/${first.configuration}`,
      hook: hooks.length === 1 ? (hooks[0]?.hook ?? "") : `${hooks.length} hooks`,
      position: -1,
      failurePolicy: { value: uniq(hooks.map((r) => r.failurePolicy.value)), defaulted: false },
      timeoutSeconds: {
        value: Math.max(0, ...hooks.map((r) => r.timeoutSeconds.value)),
        defaulted: false,
      },
      sideEffects: uniq(hooks.map((r) => r.sideEffects)),
      matchPolicy: { value: uniq(hooks.map((r) => r.matchPolicy.value)), defaulted: false },
      rules: uniq(hooks.map((r) => r.rules)),
      namespaceSelector: uniq(hooks.map((r) => r.namespaceSelector)),
      objectSelector: uniq(hooks.map((r) => r.objectSelector)),
      backend: uniq(hooks.map((r) => r.backend)),
      caNotAfter: hooks.some((r) => r.caNotAfter === "invalid") ? "invalid" : (cas.sort()[0] ?? ""),
    };
  });
}

/** Sums per-hook finding counts into per-configuration counts (keyed like configRows ids). */
export function configFindings(rows: readonly HookRow[], findings: FindingCounts): FindingCounts {
  const out: Record<string, Record<string, number>> = {};
  for (const r of rows) {
    const k = `${r.kind}/${r.configuration}`;
    const acc = (out[k] ??= {});
    for (const [sev, n] of Object.entries(findings[r.id] ?? {})) acc[sev] = (acc[sev] ?? 0) + n;
  }
  return out;
}

/** Filters, searches and sorts rows (stable; ties broken by configuration then position). */
export function applyListState(
  rows: readonly HookRow[],
  s: ListState,
  findings: FindingCounts,
): HookRow[] {
  const q = s.q.trim().toLowerCase();
  const out = rows.filter((r) => {
    if (s.kind && r.kind !== s.kind) return false;
    if (s.failurePolicy && !r.failurePolicy.value.split(", ").includes(s.failurePolicy))
      return false;
    if (s.findings) {
      const c = findings[r.id] ?? {};
      if (s.findings === "any" ? findingWeight(c) === 0 : !c[s.findings]) return false;
    }
    if (q) {
      const hay =
        `${r.kind} ${r.configuration} ${r.hook} ${r.rules} ${r.backend} ${r.namespaceSelector} ${r.objectSelector}`.toLowerCase();
      if (!hay.includes(q)) return false;
    }
    return true;
  });
  const dir = s.desc ? -1 : 1;
  return out.sort((a, b) => {
    const va = sortValue(a, s.sort, findings);
    const vb = sortValue(b, s.sort, findings);
    const c = va < vb ? -1 : va > vb ? 1 : 0;
    if (c !== 0) return c * dir;
    return a.configuration < b.configuration
      ? -1
      : a.configuration > b.configuration
        ? 1
        : a.position - b.position;
  });
}
