/**
 * The validation oracle: every corpus case is dry-run created on the real kube-apiserver
 * (dryRun=All, fieldValidation=Strict) and our validator must agree on accept/reject and on the
 * set of field paths the apiserver names (status.details.causes[].field for 422; the fields quoted
 * in a strict-decoding 400).
 */
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "vitest";
import { httpsRequest } from "../../../cluster/https-json";
import { readStack } from "../../../cluster/harness/stack";
import type { CorpusCase } from "../../../test/oracle/validation-corpus";
import { resourceFor, validationCorpus } from "../../../test/oracle/validation-corpus";
import { serverVerdict } from "../../../test/oracle/server-verdict";
import { kindInfoFor } from "./kinds";
import { validateObject } from "./validate-object";

async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!);
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return out;
}

test("validation oracle: our validator agrees with kube-apiserver on every corpus case", async () => {
  const info = readStack();
  const ca = readFileSync(info.caFile);
  const token = info.tokens.admin;
  const cases = validationCorpus();
  const results = await mapLimit(cases, 4, async (c: CorpusCase) => {
    const url = `${info.server}/apis/${c.apiVersion}/${resourceFor(c.kind)}?dryRun=All&fieldValidation=Strict`;
    const res = await httpsRequest(url, {
      method: "POST",
      token,
      ca,
      body: c.object,
      timeoutMs: 30_000,
    });
    const server = serverVerdict(res.status, res.body);
    const kindInfo = kindInfoFor(c.apiVersion, c.kind);
    if (!kindInfo) return { c, server, ours: undefined, agree: false };
    const v = validateObject(kindInfo, c.object);
    const ourFields =
      v.outcome === "decode-error"
        ? v.issues
            .filter((i) => i.source === "schema" && i.type !== "FieldValueTypeInvalid")
            .map((i) => i.field)
        : v.issues
            .filter((i) => i.source === "admission" && i.severity === "error")
            .map((i) => i.field);
    const ours = {
      outcome: v.outcome,
      fields: [...new Set(ourFields)].sort(),
      message: v.statusMessage,
    };
    const serverOutcome =
      server.status < 300
        ? "accepted"
        : server.status === 422
          ? "invalid"
          : server.status === 400
            ? "decode-error"
            : `http-${server.status}`;
    const agree =
      serverOutcome === ours.outcome &&
      JSON.stringify(server.fields) === JSON.stringify(ours.fields);
    return { c, server, ours, agree };
  });
  const bad = results.filter((r) => !r.agree);
  const agreed = results.length - bad.length;
  console.log(`validation oracle: ${agreed}/${results.length} agree`);
  const report = bad.map((r) => ({
    id: r.c.id,
    description: r.c.description,
    server: r.server,
    ours: r.ours,
  }));
  const file = path.join(os.tmpdir(), "portcullis-validation-oracle.json");
  writeFileSync(file, JSON.stringify(report, null, 2));
  for (const r of report.slice(0, 40))
    console.log(
      `DISAGREE ${r.id} ${r.description}\n  server ${r.server.status} ${JSON.stringify(r.server.fields)} ${r.server.message.slice(0, 300)}\n  ours   ${r.ours?.outcome} ${JSON.stringify(r.ours?.fields)} ${r.ours?.message.slice(0, 300)}`,
    );
  expect(agreed, `disagreements written to ${file}`).toBe(results.length);
});
