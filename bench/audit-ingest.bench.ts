/**
 * Audit ingestion on one core, each measurement in its own process, with batches of 400 events
 * replayed from bench/fixtures/audit-events.jsonl (recorded from the real local apiserver by
 * bench/record-audit-events.ts; ~1 KB an event, a few larger Request-level ones):
 * - audit-parse-only-events-per-s: JSON.parse + decision parsing (the reference, same batches);
 * - audit-ingest-sqlite-events-per-s: the same plus storing, one transaction per batch, WAL,
 *   synchronous=FULL (the default: every commit fsynced before the answer) — what
 *   POST /api/audit does before it answers (budget ≥ 50,000 and at least half of parse-only);
 * - audit-ingest-sqlite-sync-normal-events-per-s: the same with PORTCULLIS_SQLITE_SYNC=normal
 *   (committed to the WAL file before the answer, fsynced by the next checkpoint);
 * - audit-ingest-sqlite-4-in-flight-events-per-s: the same with four batches in flight (the
 *   apiserver's asynchronous webhook delegate, or several apiservers): they share commits;
 * - audit-ingest-postgres-events-per-s: the same into PostgreSQL (DATABASE_URL, or a throwaway
 *   server started from Debian's package);
 * - audit-parse-only-events-per-cpu-s, audit-ingest-sqlite-events-per-cpu-s: the same two runs
 *   per CPU second of the main thread (clock ticks of Linux's per-thread clock), which a busy
 *   shared machine distorts far less than the wall clock;
 * - rss-1m-decisions-mb: resident memory after storing 1,000,000 decisions (budget < 250);
 * - decisions-unindexed-hook-query-ms: at that size, the newest decisions of a hook that has none
 *   (the worst case of a hook's recent decisions without an index by hook: a full scan).
 */
import { execFileSync } from "node:child_process";
import { startPostgres } from "../test/postgres";
import path from "node:path";
import { pathToFileURL } from "node:url";

type Measurement = { bench: string; value: number; unit: string };

export const benches = [
  "audit-parse-only-events-per-s",
  "audit-ingest-sqlite-events-per-s",
  "audit-ingest-sqlite-4-in-flight-events-per-s",
  "audit-parse-only-events-per-cpu-s",
  "audit-ingest-sqlite-events-per-cpu-s",
  "audit-ingest-sqlite-sync-normal-events-per-s",
  "audit-ingest-postgres-events-per-s",
  "rss-1m-decisions-mb",
  "decisions-unindexed-hook-query-ms",
];

function worker(
  mode: string,
  total?: number,
  env: Record<string, string | undefined> = {},
): Record<string, number> {
  const out = execFileSync(
    process.execPath,
    [
      "--conditions=react-server",
      "--expose-gc",
      "--import",
      "tsx",
      path.join(import.meta.dirname, "audit-ingest.worker.ts"),
      mode,
      ...(total ? [String(total)] : []),
    ],
    {
      env: { ...process.env, ...env },
      cwd: path.resolve(import.meta.dirname, ".."),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return JSON.parse(out.trim().split("\n").pop() ?? "{}") as Record<string, number>;
}

/** Runs the benchmark; one entry per measurement. */
export async function run(): Promise<Measurement[]> {
  const rate = (r: Record<string, number>) => Math.round((r.events ?? 0) / (r.seconds ?? Infinity));
  const cpuRate = (r: Record<string, number>) =>
    Math.round((r.events ?? 0) / (r.cpuSeconds ?? Infinity));
  const out: Measurement[] = [];
  // Best of three each, interleaved, so a noisy neighbour does not decide the ratio.
  const parse: number[] = [];
  const sqlite: number[] = [];
  const sqlite4: number[] = [];
  const parseCpu: number[] = [];
  const sqliteCpu: number[] = [];
  for (let i = 0; i < 3; i++) {
    const p = worker("parse", 200_000);
    const s = worker("sqlite", 200_000);
    parse.push(rate(p));
    sqlite.push(rate(s));
    parseCpu.push(cpuRate(p));
    sqliteCpu.push(cpuRate(s));
    sqlite4.push(rate(worker("sqlite", 200_000, { IN_FLIGHT: "4" })));
  }
  out.push({ bench: "audit-parse-only-events-per-s", value: Math.max(...parse), unit: "events/s" });
  out.push({
    bench: "audit-ingest-sqlite-events-per-s",
    value: Math.max(...sqlite),
    unit: "events/s",
  });
  out.push({
    bench: "audit-ingest-sqlite-4-in-flight-events-per-s",
    value: Math.max(...sqlite4),
    unit: "events/s",
  });
  out.push({
    bench: "audit-parse-only-events-per-cpu-s",
    value: Math.max(...parseCpu),
    unit: "events/CPU-s",
  });
  out.push({
    bench: "audit-ingest-sqlite-events-per-cpu-s",
    value: Math.max(...sqliteCpu),
    unit: "events/CPU-s",
  });
  out.push({
    bench: "audit-ingest-sqlite-sync-normal-events-per-s",
    value: rate(worker("sqlite", 200_000, { SQLITE_SYNC: "normal" })),
    unit: "events/s",
  });
  // PostgreSQL: DATABASE_URL, or a throwaway server from Debian's package.
  const own = process.env.DATABASE_URL ? undefined : await startPostgres();
  try {
    out.push({
      bench: "audit-ingest-postgres-events-per-s",
      value: rate(
        worker("postgres", 100_000, { DATABASE_URL: process.env.DATABASE_URL ?? own?.url }),
      ),
      unit: "events/s",
    });
  } finally {
    await own?.stop();
  }
  const rss = worker("rss-1m");
  out.push({ bench: "rss-1m-decisions-mb", value: Math.round(rss.rssMb ?? NaN), unit: "MB" });
  out.push({
    bench: "decisions-unindexed-hook-query-ms",
    value: Math.round(rss.hookQueryMs ?? NaN),
    unit: "ms",
  });
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
}
