/**
 * The validation oracle through the command line: every corpus case is written to a file, the
 * built `portcullis validate DIR --output json` judges them all in one run, and each verdict
 * (accept / 400 decode error / 422 invalid, and the field paths) must match what the real
 * kube-apiserver answers to a dry-run create of the same object.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, expect, test } from "vitest";
import { validationCorpus } from "../test/oracle/validation-corpus";
import { serverVerdicts } from "../test/oracle/validation-judge";
import { ensureCliBuilt } from "./build";
import type { DocumentReport, ValidateReport } from "./commands/validate";
import { runCli } from "./test-helpers";
import { stackMinor } from "../cluster/harness/stack";
import type { ServerVerdict } from "../test/oracle/server-verdict";

beforeAll(async () => {
  await ensureCliBuilt();
}, 120_000);

// The fields the apiserver would name, read from the CLI's JSON (as the library oracle does).
// A kind this minor does not register at that version (MutatingAdmissionPolicy v1 before 1.36) is
// refused either way: validate says "no kind … is registered", the apiserver's router 404s its path.
function cliVerdict(d: DocumentReport): { outcome: string; fields: string[] } {
  if (d.outcome === "decode-error" && d.status.startsWith("no kind "))
    return { outcome: "not-served", fields: [] };
  const fields =
    d.outcome === "decode-error"
      ? d.issues.filter((i) => i.source === "schema" && i.type !== "FieldValueTypeInvalid")
      : d.issues.filter((i) => i.source === "admission" && i.severity === "error");
  return { outcome: d.outcome, fields: [...new Set(fields.map((i) => i.field))].sort() };
}

test("validation oracle via the CLI: portcullis validate agrees with kube-apiserver on every corpus case", async () => {
  const cases = validationCorpus();
  const dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-cli-oracle-"));
  const fileOf = (i: number) => path.join(dir, `case-${String(i).padStart(5, "0")}.json`);
  cases.forEach((c, i) => writeFileSync(fileOf(i), JSON.stringify(c.object, null, 2)));

  // As the stack's minor has it (npm run test:versions runs older minors).
  const run = await runCli([
    "validate",
    dir,
    "--output",
    "json",
    "--kubernetes-version",
    stackMinor(),
  ]);
  // The corpus holds objects the apiserver refuses: validate reports them and exits 1.
  expect(run.code, run.stderr).toBe(1);
  const report = JSON.parse(run.stdout) as ValidateReport;
  const bySource = new Map(report.documents.map((d) => [d.source, d]));
  expect(report.documents).toHaveLength(cases.length);
  expect(report.ok).toBe(false);

  const verdicts = await serverVerdicts(cases);
  const results = cases.map((c, i) => {
    const { outcome, fields } = verdicts[i] as ServerVerdict;
    const server =
      outcome === "http-404" ? { outcome: "not-served", fields: [] } : { outcome, fields };
    const doc = bySource.get(fileOf(i));
    const ours = doc ? cliVerdict(doc) : undefined;
    const agree = JSON.stringify(server) === JSON.stringify(ours);
    return { id: c.id, description: c.description, server, ours, agree };
  });
  const bad = results.filter((r) => !r.agree);
  const agreed = results.length - bad.length;
  console.log(`validation oracle via the CLI: ${agreed}/${results.length} agree`);
  const out = path.join(os.tmpdir(), "portcullis-cli-validation-oracle.json");
  writeFileSync(out, JSON.stringify(bad, null, 2));
  for (const r of bad.slice(0, 20))
    console.log(
      `DISAGREE ${r.id} ${r.description}\n  server ${JSON.stringify(r.server)}\n  cli    ${JSON.stringify(r.ours)}`,
    );
  expect(agreed, `disagreements written to ${out}`).toBe(results.length);
});
