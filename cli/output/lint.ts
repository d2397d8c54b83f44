/** Text output of `lint`: findings by severity with their fixes, then what ran. */
import { assumedMinorText } from "@/lib/admission/model/kubernetes-minor";
import type { LintReport } from "../commands/lint";
import type { LintObject } from "@/lib/admission/lint/lint-types";
import { describeSource } from "@/lib/admission/engines/types";

function objectText(o: LintObject): string {
  const owner = o.engine
    ? ` [${o.engine}${o.sourcePolicy && o.sourcePolicy.kind !== o.kind ? `: ${describeSource(o.sourcePolicy)}` : ""}]`
    : "";
  return `${o.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name}${o.hook ? ` / ${o.hook}` : ""}${owner}`;
}

/** One block per finding; the JSON patch is printed compactly so it can be pasted. */
export function formatLintText(r: LintReport): string {
  const lines: string[] = [];
  for (const f of r.findings) {
    lines.push(`${f.severity.toUpperCase()} ${f.id} ${f.title}`);
    lines.push(`  on: ${f.objects.map(objectText).join("; ")}`);
    lines.push(`  ${f.explanation}`);
    if (f.fix) {
      lines.push(`  fix: ${f.fix.description}`);
      if (f.fix.jsonPatch) lines.push(`  patch: ${JSON.stringify(f.fix.jsonPatch)}`);
    }
    lines.push("");
  }
  for (const n of r.notices) lines.push(`notice: ${n.at}: ${n.message}`);
  const b = r.summary.bySeverity;
  lines.push(
    `${r.summary.findings} finding${r.summary.findings === 1 ? "" : "s"} (${b.critical} critical, ${b.high} high, ${b.medium} medium, ${b.low} low, ${b.info} info) in ${r.summary.configurations} configuration${r.summary.configurations === 1 ? "" : "s"}; ${r.mode} checks ${r.checks.run.join(" ")}`,
    `assumed: ${assumedMinorText(r.kubernetes)}`,
  );
  if (r.checks.notRun.length > 0)
    lines.push(
      `not run: ${r.checks.notRun.map((c) => `${c.ids.join("/")} (needs ${c.needs})`).join(", ")}`,
    );
  lines.push(
    r.ok ? `ok: nothing at or above ${r.failOn}` : `failed: findings at or above ${r.failOn}`,
  );
  return lines.join("\n") + "\n";
}
