/** Text output of `validate`: one compiler-style line per issue, then a summary. */
import type { DocumentReport, ReportedIssue, ValidateReport } from "../commands/validate";

function where(d: DocumentReport, i: ReportedIssue): string {
  if (i.line === null) return `${d.source}: ${d.kind} ${d.name}`;
  return `${d.source}:${i.line}:${i.column ?? 1}`;
}

/** `file:line:col: error: field: message (Type)` per issue, the Status message per rejection. */
export function formatValidateText(r: ValidateReport): string {
  const lines: string[] = [];
  for (const d of r.documents) {
    if (d.outcome === "skipped") continue;
    for (const i of d.issues) {
      const field = i.field ? `${i.field}: ` : "";
      lines.push(`${where(d, i)}: ${i.severity}: ${field}${i.message} (${i.type})`);
    }
    if (d.outcome === "invalid" || d.outcome === "decode-error")
      lines.push(`  ${d.outcome === "invalid" ? "422" : "400"} ${d.status}`);
  }
  for (const n of r.notices) lines.push(`notice: ${n.at}: ${n.message}`);
  const s = r.summary;
  lines.push(
    `${s.documents} document${s.documents === 1 ? "" : "s"}: ${s.accepted} valid, ${s.invalid} invalid, ${s.skipped} skipped (${s.errors} error${s.errors === 1 ? "" : "s"}, ${s.warnings} warning${s.warnings === 1 ? "" : "s"})`,
  );
  return lines.join("\n") + "\n";
}
