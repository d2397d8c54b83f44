/**
 * One measurement of bench/audit-ingest.bench.ts in its own process (started with the
 * react-server condition so server modules load outside Next): prints one JSON line.
 * Modes: parse, sqlite (SQLITE_SYNC=normal|full), postgres (DATABASE_URL), rss-1m. Every mode
 * reads the batch bodies as the sink does (parseEventListText).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseEventListText } from "@/lib/admission/audit-batch";
import { SqliteDriver, type SqliteSync } from "@/server/decisions/sqlite";
import { DecisionStore } from "@/server/decisions/store";
import type { SqlDriver } from "@/server/decisions/sql";

const BATCH = 400; // the apiserver's default --audit-webhook-batch-max-size
const mode = process.argv[2] ?? "parse";
const total = Number(process.argv[3] ?? 200_000);

const fixture = readFileSync(
  path.join(import.meta.dirname, "fixtures", "audit-events.jsonl"),
  "utf8",
)
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as Record<string, unknown>);

/**
 * Batch bodies as the apiserver sends them: every event with its own auditID and, as a live
 * apiserver's are, timestamps that move forward (20 events a millisecond).
 */
function* batches(count: number, seed: string, start = Date.now()): Generator<string> {
  let n = 0;
  while (n < count) {
    const items = [];
    for (let i = 0; i < BATCH && n < count; i++, n++) {
      const e = fixture[n % fixture.length]!;
      const t = new Date(start + Math.floor(n / 20)).toISOString();
      items.push({ ...e, auditID: `${seed}-${n}`, requestReceivedTimestamp: t, stageTimestamp: t });
    }
    yield JSON.stringify({ kind: "EventList", apiVersion: "audit.k8s.io/v1", items });
  }
}

async function openStore(dir: string): Promise<DecisionStore> {
  let driver: SqlDriver;
  if (mode === "postgres") {
    const { PostgresDriver } = await import("@/server/decisions/postgres");
    driver = new PostgresDriver(process.env.DATABASE_URL ?? "");
  } else
    driver = new SqliteDriver(
      path.join(dir, "decisions.sqlite"),
      (process.env.SQLITE_SYNC ?? "full") as SqliteSync,
    );
  const store = new DecisionStore(driver, { maxAgeMs: 365 * 86_400_000, maxRows: 100_000_000 });
  await store.migrate();
  return store;
}

/**
 * CPU time of the main thread (where parsing and inserting run; Linux's per-thread clock, else
 * the whole process): on a busy shared machine, events per CPU second of the ingesting thread
 * tell what one core does when the wall clock cannot.
 */
function cpuSeconds(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-bench-"));
try {
  const texts = [...batches(total, `b${Date.now()}`)];
  if (mode === "parse") {
    let n = 0;
    const c0 = cpuSeconds();
    const t0 = performance.now();
    for (const t of texts) n += parseEventListText(t).length;
    const s = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds() - c0;
    console.log(JSON.stringify({ events: total, decisionEvents: n, seconds: s, cpuSeconds: cpu }));
  } else if (mode === "sqlite" || mode === "postgres") {
    const store = await openStore(dir);
    // IN_FLIGHT batches at once, as the apiserver's asynchronous webhook delegate sends them.
    const inFlight = Number(process.env.IN_FLIGHT ?? 1);
    let n = 0;
    let next = 0;
    const c0 = cpuSeconds();
    const t0 = performance.now();
    const sender = async () => {
      for (let i = next++; i < texts.length; i = next++) {
        const r = await store.ingest(parseEventListText(texts[i] ?? ""));
        n += r.stored;
      }
    };
    await Promise.all(Array.from({ length: inFlight }, sender));
    const s = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds() - c0;
    await store.driver.close();
    console.log(JSON.stringify({ events: total, decisionEvents: n, seconds: s, cpuSeconds: cpu }));
  } else if (mode === "rss-1m") {
    const store = await openStore(dir);
    texts.length = 0;
    let decisions = 0;
    let i = 0;
    const start = Date.now();
    while (decisions < 1_000_000) {
      for (const t of batches(BATCH * 10, `r${i}`, start + i++ * 200)) {
        const r = await store.ingest(parseEventListText(t));
        decisions += r.decisions.length;
      }
    }
    // A page of the feed and the chart, as a reader would ask, over the full store.
    const all = { outcome: [] };
    await store.list(all, { limit: 200 });
    await store.histogram({ ...all, from: 0, to: Date.now() + 1 }, 86_400_000);
    (globalThis as { gc?: () => void }).gc?.();
    const rss = process.memoryUsage().rss / 1024 / 1024;
    const q0 = performance.now();
    await store.list({ ...all, hook: "no-such-hook.example.com" }, { limit: 20 });
    const hookQueryMs = performance.now() - q0;
    await store.driver.close();
    console.log(JSON.stringify({ decisions, rssMb: rss, hookQueryMs }));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
