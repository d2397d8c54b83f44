/**
 * One measurement of bench/audit-ingest.bench.ts in its own process (started with the
 * react-server condition so server modules load outside Next, pinned to one core by the bench):
 * prints one JSON line. Every timed pass starts from the batch bodies' bytes and reads them as the
 * sink does (parseEventListBody: UTF-8 text, then the parse).
 * Modes:
 * - pair: parse-only over every batch, then ingestion of the same batches into SQLite
 *   (SQLITE_SYNC=full|normal, IN_FLIGHT batches at once), in this one process;
 * - sqlite, postgres (DATABASE_URL): ingestion only;
 * - rss-1m: resident memory after 1,000,000 stored decisions, and reads at that size.
 * Each pass reports wall seconds and CPU seconds of the whole process (every thread: the main
 * one, SQLite's checkpointer, the garbage collector's helpers).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseEventListBody } from "@/lib/admission/audit/audit-batch";
import { SqliteDriver, type SqliteSync } from "@/server/decisions/sqlite";
import { DecisionStore } from "@/server/decisions/store";
import type { SqlDriver } from "@/server/decisions/sql";

const BATCH = 400; // the apiserver's default --audit-webhook-batch-max-size
const mode = process.argv[2] ?? "pair";
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

async function openStore(dir: string, engine: "sqlite" | "postgres"): Promise<DecisionStore> {
  let driver: SqlDriver;
  if (engine === "postgres") {
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

/** CPU seconds of the whole process so far (every thread). */
function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

interface Pass {
  events: number;
  decisionEvents: number;
  seconds: number;
  cpuSeconds: number;
}

async function timed(work: () => Promise<number> | number): Promise<Pass> {
  (globalThis as { gc?: () => void }).gc?.();
  const c0 = cpuSeconds();
  const t0 = performance.now();
  const n = await work();
  return {
    events: total,
    decisionEvents: n,
    seconds: (performance.now() - t0) / 1000,
    cpuSeconds: cpuSeconds() - c0,
  };
}

function parseOnly(bodies: Buffer[]): number {
  let n = 0;
  for (const b of bodies) n += parseEventListBody(b).length;
  return n;
}

/** IN_FLIGHT batches at once, as the apiserver's buffered webhook backend sends them. */
async function ingest(store: DecisionStore, bodies: Buffer[]): Promise<number> {
  const inFlight = Number(process.env.IN_FLIGHT ?? 1);
  let n = 0;
  let next = 0;
  const sender = async () => {
    for (let i = next++; i < bodies.length; i = next++) {
      const r = await store.ingest(parseEventListBody(bodies[i] ?? Buffer.alloc(0)));
      n += r.stored;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, sender));
  return n;
}

/**
 * Runs `work`; returns its result, how long it took, and the longest the event loop waited
 * meanwhile: a timer due every millisecond, late by that much.
 */
async function stalled<T>(
  work: () => Promise<T>,
): Promise<{ value: T; ms: number; stallMs: number }> {
  let stallMs = 0;
  let due = performance.now() + 1;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - due);
    due = now + 1;
  }, 1);
  const t0 = performance.now();
  const value = await work();
  const ms = performance.now() - t0;
  stallMs = Math.max(stallMs, performance.now() - due);
  clearInterval(timer);
  return { value, ms, stallMs };
}

const dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-bench-"));
try {
  // (Not for rss-1m: its bodies are made as it goes, so they are not counted in its memory.)
  const bodies =
    mode === "rss-1m"
      ? []
      : [...batches(total, `b${Date.now()}`)].map((t) => Buffer.from(t, "utf8"));
  if (mode === "pair") {
    // Warm-up on a tenth of the batches, so neither pass pays for compiling its code: the parser,
    // and the store's (into a store of its own, then dropped).
    const warm = bodies.slice(0, Math.ceil(bodies.length / 10));
    parseOnly(warm);
    const parse = await timed(() => parseOnly(bodies));
    const warmDir = path.join(dir, "warm-up");
    const warmStore = await openStore(warmDir, "sqlite");
    await ingest(warmStore, warm);
    await warmStore.driver.close();
    rmSync(warmDir, { recursive: true, force: true });
    const store = await openStore(dir, "sqlite");
    const sqlite = await timed(() => ingest(store, bodies));
    await store.driver.close();
    console.log(JSON.stringify({ parse, sqlite }));
  } else if (mode === "sqlite" || mode === "postgres") {
    const store = await openStore(dir, mode);
    const pass = await timed(() => ingest(store, bodies));
    await store.driver.close();
    console.log(JSON.stringify({ [mode]: pass }));
  } else if (mode === "rss-1m") {
    const store = await openStore(dir, "sqlite");
    let decisions = 0;
    let i = 0;
    const start = Date.now();
    while (decisions < 1_000_000) {
      for (const t of batches(BATCH * 10, `r${i}`, start + i++ * 200)) {
        const r = await store.ingest(parseEventListBody(Buffer.from(t, "utf8")));
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
    // The busiest hook's page of the feed, and its chart over everything stored.
    const busiest =
      (await store.list(all, { limit: 50 })).find((d) => d.kind.endsWith("webhook"))?.hook ?? "";
    const q1 = performance.now();
    await store.list({ ...all, hook: busiest }, { limit: 200 });
    const hookPageMs = performance.now() - q1;
    const q2 = performance.now();
    await store.histogram({ ...all, hook: busiest, from: 0, to: Date.now() + 86_400_000 }, 60_000);
    const hookChartMs = performance.now() - q2;
    // The overview's tally over everything stored (its 15-minute window at its fullest), and
    // the longest the event loop (the audit sink, the live streams) waited meanwhile.
    const tally = await stalled(() =>
      store.tally({ ...all, from: 0, to: Date.now() + 86_400_000 }, 1_000),
    );
    // Retention cutting the store to a tenth (as after lowering the row limit): how long, and
    // the longest the event loop waited meanwhile.
    const cut = new DecisionStore(store.driver, { maxAgeMs: 365 * 86_400_000, maxRows: 100_000 });
    const prune = await stalled(() => cut.prune());
    await store.driver.close();
    // What the database takes on disk for them (the WAL is checkpointed into it on close).
    const dbMb =
      readdirSync(dir).reduce((n, f) => n + statSync(path.join(dir, f)).size, 0) / 1024 / 1024;
    console.log(
      JSON.stringify({
        decisions,
        rssMb: rss,
        hookQueryMs,
        hookPageMs,
        hookChartMs,
        tallyMs: tally.ms,
        tallyStallMs: tally.stallMs,
        pruneMs: prune.ms,
        pruneStallMs: prune.stallMs,
        pruneDeleted: prune.value,
        dbMb,
      }),
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
