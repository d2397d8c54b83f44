/** Text output of `predict`: the call sequence, skips with reasons, and the latency bound. */
import type { HookRef, PredictReport } from "@/lib/admission/report/predict-report";
import { assumedMinorText } from "@/lib/admission/model/kubernetes-minor";

const hookText = (h: HookRef): string => `${h.source} ${h.configuration} / ${h.name}`;

/** A numbered call list, then skips and notes. */
export function formatPredictText(r: PredictReport): string {
  const q = r.request;
  const res = `${q.group || "core"}/${q.version}/${q.resource}${q.subresource ? `/${q.subresource}` : ""}`;
  const lines: string[] = [
    `${q.operation} ${res}${q.namespace ? ` in ${q.namespace}` : ""}${q.name ? ` name ${q.name}` : ""} as ${q.userInfo.username}${q.dryRun ? " (dry run)" : ""}`,
    `as ${assumedMinorText(r.kubernetes)} admits it`,
    "",
  ];
  if (r.calls.length === 0) lines.push("calls: none");
  else lines.push("calls:");
  for (const c of r.calls) {
    const tags = [
      c.round === 1 ? "round 1, possible" : undefined,
      c.timeoutSeconds > 0 ? `timeout ${c.timeoutSeconds}s` : undefined,
      `failurePolicy ${c.failurePolicy}`,
      c.parallel ? "parallel" : undefined,
      c.reinvocationPolicy === "IfNeeded" ? "reinvocation IfNeeded" : undefined,
      c.converted
        ? `as ${c.via.kind.group || "core"}/${c.via.kind.version} ${c.via.kind.kind}`
        : undefined,
    ].filter((t) => t !== undefined);
    lines.push(`  ${c.order + 1}. [${c.stage}] ${hookText(c.hook)} (${tags.join(", ")})`);
    if (c.conditionError)
      lines.push(`     matchConditions fail; the decision: ${c.conditionError}`);
  }
  if (r.indeterminate.length > 0) {
    lines.push("", "undecided (may be called):");
    for (const x of r.indeterminate) lines.push(`  [${x.stage}] ${hookText(x.hook)}: ${x.message}`);
  }
  if (r.rejectedBeforeHooks)
    lines.push(
      "",
      r.rejectedBeforeHooks.plugin === "routing"
        ? `REFUSED by the apiserver's router before admission: ${r.rejectedBeforeHooks.status} ${r.rejectedBeforeHooks.message}`
        : `REJECTED by ${r.rejectedBeforeHooks.plugin} before any hook: ${r.rejectedBeforeHooks.status} ${r.rejectedBeforeHooks.message}`,
    );
  if (r.neverSent)
    lines.push("", `NEVER ADMITTED as ${r.request.operation}: ${r.exclusions.webhooks ?? ""}`);
  const ps = r.podSecurity;
  if (ps) {
    lines.push(
      "",
      `PodSecurity (enforce ${ps.enforce}, audit ${ps.audit}, warn ${ps.warn}; from the namespace's labels${ps.assumption === null ? " and the configured defaults" : ""}):`,
    );
    if (ps.exemption) lines.push(`  exempt: ${ps.exemption.message}`);
    if (ps.assumption) lines.push(`  note: ${ps.assumption} (pass --admission-config FILE)`);
    if (ps.rejection)
      lines.push(
        `  ${ps.rejects ? "REJECTED" : "would reject"}: ${ps.rejection.status} ${ps.rejection.message}`,
      );
    for (const w of ps.warnings) lines.push(`  warning: ${w}`);
    for (const e of ps.labelErrors) lines.push(`  label does not parse: ${e}`);
    if (ps.undecided) lines.push(`  undecided: ${ps.undecided}`);
    if (!ps.rejection && ps.warnings.length === 0) lines.push("  allowed");
  }
  if (r.failure)
    lines.push(
      "",
      `REJECTED at [${r.failure.stage}] ${hookText(r.failure.hook)}: ${r.failure.status} ${r.failure.message}`,
    );
  if (r.alsoFailing.length > 0) {
    lines.push("also failing (the apiserver names one of all of these):");
    for (const f of r.alsoFailing)
      lines.push(`  [${f.stage}] ${hookText(f.hook)}: ${f.status} ${f.message}`);
  }
  if (r.skips.length > 0) {
    lines.push("", "skipped:");
    for (const s of r.skips) lines.push(`  [${s.stage}] ${hookText(s.hook)}: ${s.message}`);
  }
  for (const e of [r.exclusions.webhooks, r.exclusions.policies])
    if (e) lines.push(`excluded: ${e}`);
  lines.push("", `worst-case added latency: ${r.worstCaseLatencySeconds}s`);
  // The historical hooks, each kind apart: a current apiserver does not call them.
  for (const sec of r.legacy) {
    lines.push("", `${sec.title}:`);
    for (const c of sec.calls)
      lines.push(
        `  ${c.order + 1}. ${c.configuration} / ${c.name} (${[
          c.round === 1 ? "round 1, possible" : undefined,
          c.timeoutSeconds !== null ? `timeout ${c.timeoutSeconds}s` : undefined,
          `failurePolicy ${c.failurePolicy}`,
          `matchPolicy ${c.matchPolicy}`,
        ]
          .filter((t) => t !== undefined)
          .join(", ")})`,
      );
    for (const x of sec.skips) lines.push(`  skipped ${x.configuration} / ${x.name}: ${x.message}`);
  }
  for (const n of r.notices) lines.push(`notice: ${n.at}: ${n.message}`);
  return lines.join("\n") + "\n";
}
