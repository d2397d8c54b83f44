/**
 * Audit ingestion on one core: every measurement runs in its own process pinned to one CPU
 * (taskset; PORTCULLIS_BENCH_CPU picks which, default the last), with batches of 400 events
 * replayed from bench/fixtures/audit-events.jsonl (recorded from the real local apiserver by
 * bench/record-audit-events.ts; ~1 KB an event, a few larger Request-level ones). Every pass
 * starts from the bodies' bytes, as the sink gets them.
 * - audit-parse-only-events-per-s: UTF-8 decoding, JSON.parse and decision parsing (the
 *   reference), and audit-ingest-sqlite-events-per-s: the same plus storing, one transaction per
 *   batch, WAL, synchronous=FULL (the default: every commit fsynced before the answer) — what
 *   POST /api/audit does before it answers (budget ≥ 50,000 and at least half of parse-only).
 *   Both in the same process, one after the other, three rounds; each figure is the median
 *   round, and audit-ingest-sqlite-to-parse-only is the median of the rounds' own ratios;
 * - …-per-cpu-s: the same passes per CPU second of the whole process (every thread, SQLite's
 *   checkpointer and the garbage collector's included), which a busy shared machine distorts
 *   far less than the wall clock; with FULL, wall time also holds the disk's fsync latency (the
 *   process waits, idle, for every commit to reach the disk: 3–4 ms a commit on the disk this
 *   was measured on), so audit-ingest-sqlite-to-parse-only-per-cpu-s (the median of the rounds'
 *   own ratios) compares the work done, and the wall ratio what one sender waiting on each
 *   batch sees;
 * - audit-ingest-sqlite-sync-normal-events-per-s (and per CPU second): the same with
 *   PORTCULLIS_SQLITE_SYNC=normal (in the WAL file before the answer, fsynced by the next
 *   checkpoint: survives kill -9 of the dashboard, not a power cut);
 * - audit-ingest-sqlite-4-in-flight-events-per-s: FULL with four batches in flight (the
 *   apiserver's buffered webhook backend sends batches concurrently): they share commits;
 * - audit-ingest-postgres-events-per-s: the same into PostgreSQL (DATABASE_URL, or a throwaway
 *   server started from Debian's package; that server is not pinned);
 * - rss-1m-decisions-mb: resident memory after storing 1,000,000 decisions (budget < 250), and
 *   decisions-1m-db-mb: what the SQLite database takes on disk for them;
 * - decisions-hook-query-ms: at that size, the newest decisions of a hook that has none (the
 *   worst case of a webhook page's recent decisions: every span of the store is read);
 *   decisions-hook-page-ms: a 200-row page of the feed filtered to the busiest hook;
 *   decisions-hook-chart-ms: that hook's chart over everything stored; decisions-tally-1m-ms:
 *   the overview's count by webhook or policy and outcome, over every stored decision (its
 *   15-minute window holding all of them); decisions-tally-1m-event-loop-stall-ms: the longest
 *   the event loop waited meanwhile (the feed's reads run on SQLite's reader thread: the audit
 *   sink and the live streams go on);
 * - decisions-prune-1m-to-100k-ms: retention cutting those 1,000,000 decisions to the newest
 *   100,000 (as after lowering the row limit), and decisions-prune-1m-to-100k-event-loop-stall-ms:
 *   the longest the event loop waited meanwhile (retention deletes a chunk a transaction).
 */
import { execFileSync } from "node:child_process";
import os from "node:os";
import { startPostgres } from "../test/postgres";
import path from "node:path";
import { pathToFileURL } from "node:url";

type Measurement = { bench: string; value: number; unit: string };

export const benches = [
  "audit-parse-only-events-per-s",
  "audit-ingest-sqlite-events-per-s",
  "audit-ingest-sqlite-to-parse-only",
  "audit-parse-only-events-per-cpu-s",
  "audit-ingest-sqlite-events-per-cpu-s",
  "audit-ingest-sqlite-to-parse-only-per-cpu-s",
  "audit-ingest-sqlite-sync-normal-events-per-s",
  "audit-ingest-sqlite-sync-normal-events-per-cpu-s",
  "audit-ingest-sqlite-4-in-flight-events-per-s",
  "audit-ingest-postgres-events-per-s",
  "rss-1m-decisions-mb",
  "decisions-1m-db-mb",
  "decisions-hook-query-ms",
  "decisions-hook-page-ms",
  "decisions-hook-chart-ms",
  "decisions-tally-1m-ms",
  "decisions-tally-1m-event-loop-stall-ms",
  "decisions-prune-1m-to-100k-ms",
  "decisions-prune-1m-to-100k-event-loop-stall-ms",
];

interface Pass {
  events: number;
  seconds: number;
  cpuSeconds: number;
}

/** The CPU the workers are pinned to. */
const CPU = process.env.PORTCULLIS_BENCH_CPU ?? String(Math.max(0, os.availableParallelism() - 1));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

function worker(
  mode: string,
  total?: number,
  env: Record<string, string | undefined> = {},
  pinned = true,
): Record<string, Pass> & Record<string, number> {
  const node = [
    process.execPath,
    "--conditions=react-server",
    "--expose-gc",
    "--import",
    "tsx",
    path.join(import.meta.dirname, "audit-ingest.worker.ts"),
    mode,
    ...(total ? [String(total)] : []),
  ];
  const [cmd, ...args] = pinned ? ["taskset", "-c", CPU, ...node] : node;
  const out = execFileSync(cmd as string, args, {
    env: { ...process.env, ...env },
    cwd: path.resolve(import.meta.dirname, ".."),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return JSON.parse(out.trim().split("\n").pop() ?? "{}") as Record<string, Pass> &
    Record<string, number>;
}

/** Runs the benchmark; one entry per measurement. */
export async function run(): Promise<Measurement[]> {
  const rate = (p: Pass | undefined) => (p ? p.events / p.seconds : NaN);
  const cpuRate = (p: Pass | undefined) => (p ? p.events / p.cpuSeconds : NaN);
  const out: Measurement[] = [];
  const put = (bench: string, value: number, unit: string) =>
    out.push({
      bench,
      value: unit === "ratio" ? Math.round(value * 100) / 100 : Math.round(value),
      unit,
    });
  // Parse-only and ingestion in the same process, three rounds; medians.
  const rounds = [0, 1, 2].map(() => worker("pair", 200_000));
  const of = (f: (r: (typeof rounds)[number]) => number) => median(rounds.map(f));
  put(
    "audit-parse-only-events-per-s",
    of((r) => rate(r.parse)),
    "events/s",
  );
  put(
    "audit-ingest-sqlite-events-per-s",
    of((r) => rate(r.sqlite)),
    "events/s",
  );
  put(
    "audit-ingest-sqlite-to-parse-only",
    of((r) => rate(r.sqlite) / rate(r.parse)),
    "ratio",
  );
  put(
    "audit-parse-only-events-per-cpu-s",
    of((r) => cpuRate(r.parse)),
    "events/CPU-s",
  );
  put(
    "audit-ingest-sqlite-events-per-cpu-s",
    of((r) => cpuRate(r.sqlite)),
    "events/CPU-s",
  );
  put(
    "audit-ingest-sqlite-to-parse-only-per-cpu-s",
    of((r) => cpuRate(r.sqlite) / cpuRate(r.parse)),
    "ratio",
  );
  const normal = [0, 1, 2].map(() => worker("sqlite", 200_000, { SQLITE_SYNC: "normal" }).sqlite);
  put("audit-ingest-sqlite-sync-normal-events-per-s", median(normal.map(rate)), "events/s");
  put(
    "audit-ingest-sqlite-sync-normal-events-per-cpu-s",
    median(normal.map(cpuRate)),
    "events/CPU-s",
  );
  put(
    "audit-ingest-sqlite-4-in-flight-events-per-s",
    rate(worker("sqlite", 200_000, { IN_FLIGHT: "4" }).sqlite),
    "events/s",
  );
  // PostgreSQL: DATABASE_URL, or a throwaway server from Debian's package.
  const own = process.env.DATABASE_URL ? undefined : await startPostgres();
  try {
    put(
      "audit-ingest-postgres-events-per-s",
      rate(
        worker("postgres", 100_000, { DATABASE_URL: process.env.DATABASE_URL ?? own?.url })
          .postgres,
      ),
      "events/s",
    );
  } finally {
    await own?.stop();
  }
  const rss = worker("rss-1m", undefined, {}, false);
  put("rss-1m-decisions-mb", rss.rssMb ?? NaN, "MB");
  put("decisions-1m-db-mb", rss.dbMb ?? NaN, "MB");
  for (const [bench, ms] of [
    ["decisions-hook-query-ms", rss.hookQueryMs],
    ["decisions-hook-page-ms", rss.hookPageMs],
    ["decisions-hook-chart-ms", rss.hookChartMs],
    ["decisions-tally-1m-ms", rss.tallyMs],
    ["decisions-tally-1m-event-loop-stall-ms", rss.tallyStallMs],
    ["decisions-prune-1m-to-100k-ms", rss.pruneMs],
    ["decisions-prune-1m-to-100k-event-loop-stall-ms", rss.pruneStallMs],
  ] as const)
    out.push({ bench, value: Math.round((ms ?? NaN) * 100) / 100, unit: "ms" });
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
}
