/**
 * Records the audit events bench/audit-ingest.bench.ts replays: runs the decision scenario
 * (harness webhooks and policies, every outcome) against the stack named by PORTCULLIS_STACK and
 * copies what the real apiserver wrote to its audit log meanwhile — the same events its audit
 * webhook sends — into bench/fixtures/audit-events.jsonl.
 * `PORTCULLIS_STACK=<file> npx tsx bench/record-audit-events.ts`
 */
import { openSync, readSync, statSync, writeFileSync, closeSync } from "node:fs";
import path from "node:path";
import { readStack } from "../cluster/harness/stack";
import { CASES, startScenario } from "../test/decisions-scenario";

const stack = readStack();
const start = statSync(stack.auditLogPath).size;
const scenario = await startScenario(stack);
try {
  for (let round = 0; round < 40; round++) {
    for (const c of CASES) {
      // The sleeping hooks cost a second each: a few of them are enough.
      if (c.startsWith("slow-") && round >= 4) continue;
      if (round === 0) await scenario.produce(c);
      else await scenario.create(c, `${c}-${round}`);
    }
  }
} finally {
  await scenario.cleanup();
}
// The audit log is written asynchronously; give the last events a moment.
await new Promise((r) => setTimeout(r, 2_000));
const size = statSync(stack.auditLogPath).size;
const buf = Buffer.alloc(size - start);
const fd = openSync(stack.auditLogPath, "r");
readSync(fd, buf, 0, buf.length, start);
closeSync(fd);
const lines = buf
  .toString("utf8")
  .split("\n")
  .filter((l) => l.startsWith("{"));
const out = path.join(import.meta.dirname, "fixtures", "audit-events.jsonl");
writeFileSync(out, lines.join("\n") + "\n");
console.error(`recorded ${lines.length} events (${buf.length} bytes) to ${out}`);
