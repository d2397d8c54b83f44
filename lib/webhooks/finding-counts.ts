/** Lint findings grouped by the hook (or configuration) they are about. Pure; no linter import. */
import type { LintFinding } from "@/lib/admission/lint/lint-types";
import type { FindingCounts } from "./list-filter";
import type { HookRow } from "./summary";

/** True when the finding names this hook (or its whole configuration). */
export function findingConcerns(
  f: LintFinding,
  kind: string,
  configuration: string,
  hook: string,
): boolean {
  return f.objects.some(
    (o) => o.kind === kind && o.name === configuration && (o.hook === undefined || o.hook === hook),
  );
}

/** Counts findings by severity for every row. */
export function countFindings(
  rows: readonly HookRow[],
  findings: readonly LintFinding[],
): FindingCounts {
  const byKey = new Map<string, string[]>();
  for (const r of rows) {
    const k = `${r.kind}\u0000${r.configuration}\u0000${r.hook}`;
    const ids = byKey.get(k);
    if (ids) ids.push(r.id);
    else byKey.set(k, [r.id]);
  }
  const out: Record<string, Record<string, number>> = {};
  for (const f of findings) {
    const seen = new Set<string>();
    for (const o of f.objects) {
      const keys = o.hook
        ? [`${o.kind}\u0000${o.name}\u0000${o.hook}`]
        : [...byKey.keys()].filter((k) => k.startsWith(`${o.kind}\u0000${o.name}\u0000`));
      for (const k of keys) {
        for (const id of byKey.get(k) ?? []) {
          if (seen.has(id)) continue;
          seen.add(id);
          const acc = (out[id] ??= {});
          acc[f.severity] = (acc[f.severity] ?? 0) + 1;
        }
      }
    }
  }
  return out;
}
