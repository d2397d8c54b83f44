/**
 * `portcullis test` output: text in the shape of `go test -v` (one `--- PASS|FAIL|SKIP: name
 * (0.00s)` line per case, the reasons indented below a failure or a skip, then `PASS`/`FAIL`
 * and a summary), and JUnit XML for CI systems (one testsuite per file).
 */
import type { TestCaseReport, TestRunReport } from "../commands/test";

const seconds = (ms: number): string => (ms / 1000).toFixed(2);

const LABEL: Record<TestCaseReport["status"], string> = {
  pass: "PASS",
  fail: "FAIL",
  skip: "SKIP",
  error: "FAIL",
};

/** The lines under a case: why it failed, erred, or was skipped. */
function details(c: TestCaseReport): string[] {
  if (c.status === "error") return [`${c.at}: ${c.error ?? "error"}`];
  const shown = c.checks.filter((k) =>
    c.status === "skip" ? k.status === "undecided" : k.status === "fail",
  );
  const lines = shown.map((k) => `${c.at}: ${k.expectation}: ${k.message}`);
  if (c.dryRun?.kind === "skipped") lines.push(`${c.at}: no dry run: ${c.dryRun.reason}`);
  return lines;
}

/** The text report. */
export function formatTestText(r: TestRunReport): string {
  const out: string[] = [];
  for (const c of r.cases) {
    out.push(`--- ${LABEL[c.status]}: ${c.name} (${seconds(c.durationMs)}s)`);
    for (const line of details(c)) out.push(`    ${line}`);
  }
  for (const n of r.notices) out.push(`notice: ${n}`);
  if (r.dryRun)
    out.push(
      `dry run: ${r.dryRun.sent} sent, ${r.dryRun.skipped.length} not sent${r.dryRun.skipped.length > 0 ? ":" : ""}`,
      ...r.dryRun.skipped.map((s) => `    ${s.case} (${s.at}): ${s.reason}`),
    );
  const s = r.summary;
  out.push(r.ok ? "PASS" : "FAIL");
  out.push(
    `${r.ok ? "ok  " : "FAIL"}\t${s.total} cases: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped, ${s.errors} errors\t${seconds(s.durationMs)}s`,
  );
  return out.join("\n") + "\n";
}

const escapeXml = (s: string): string =>
  s
    // XML 1.0 refuses most control characters even escaped.
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");

/** JUnit XML: a testsuite per test file, a testcase per case. */
export function junitXml(r: TestRunReport): string {
  const byFile = new Map<string, TestCaseReport[]>();
  for (const c of r.cases) byFile.set(c.file, [...(byFile.get(c.file) ?? []), c]);
  const count = (cs: TestCaseReport[], s: TestCaseReport["status"]) =>
    cs.filter((c) => c.status === s).length;
  const time = (cs: TestCaseReport[]) => seconds(cs.reduce((t, c) => t + c.durationMs, 0));
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="portcullis test" tests="${r.summary.total}" failures="${r.summary.failed}" errors="${r.summary.errors}" skipped="${r.summary.skipped}" time="${seconds(r.summary.durationMs)}">`,
  ];
  for (const [file, cs] of byFile) {
    lines.push(
      `  <testsuite name="${escapeXml(file)}" tests="${cs.length}" failures="${count(cs, "fail")}" errors="${count(cs, "error")}" skipped="${count(cs, "skip")}" time="${time(cs)}">`,
    );
    for (const c of cs) {
      const open = `    <testcase name="${escapeXml(c.name)}" classname="${escapeXml(c.suite)}" file="${escapeXml(file)}" time="${seconds(c.durationMs)}"`;
      const body = details(c).join("\n");
      if (c.status === "pass") lines.push(`${open}/>`);
      else {
        const tag = c.status === "fail" ? "failure" : c.status === "error" ? "error" : "skipped";
        const first = body.split("\n")[0] ?? "";
        lines.push(
          `${open}>`,
          `      <${tag} message="${escapeXml(first)}">${escapeXml(body)}</${tag}>`,
          "    </testcase>",
        );
      }
    }
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>");
  return lines.join("\n") + "\n";
}
