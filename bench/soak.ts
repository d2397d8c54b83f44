/**
 * The soak and fault harness (docs/testing.md, "Soak"): the production server — two shared-mode
 * replicas on PostgreSQL and one on SQLite — on the local control plane with the demo's admission
 * set-up and traffic, under load (live streams, signed-in users, audit batches) while faults are
 * injected on a schedule; then what it asserts, as figures. Exits 1 when an assertion fails.
 *
 *   npm run bench -- soak --minutes 30            (or: npx tsx bench/soak.ts --minutes 5)
 *   --streams N --users N --events N              load (defaults fit a 2-core machine)
 *   --full                                        the issue's figures: 200 streams, 50 users, 4,000 events/s
 *
 * Everything listens on loopback; the run is bounded by --minutes (plus start, the fault under
 * way, and at most 2 minutes to drain) and removes what it started.
 */
import { pathToFileURL } from "node:url";
import path from "node:path";
import Database from "better-sqlite3";
import { SHARED_CONTEXT } from "@/lib/auth/mode";
import { policyHeaders } from "../test/api-headers";
import { sessionCookieOf } from "../test/shared-api";
import {
  AuditSender,
  LiveStream,
  postFrom,
  User,
  userAddress,
  type Answer,
  type Collection,
  type SinkTarget,
} from "./soak/load";
import {
  compactAndRestart,
  connectionIdleTimes,
  fillDisk,
  idleFds,
  pooledConnections,
  restartApiserver,
  rotateAuditCertificate,
  servedFingerprint,
  startSoakStack,
  unheldConnections,
  usageOf,
  type IdleFds,
  type Replica,
  type SoakStack,
} from "./soak/stack";
import { Tabs, type TabOutcome } from "./soak/tabs";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { heapGrowth, summariseHeap, takeHeapSnapshot, type HeapSummary } from "./soak/heap";
import { auditLogFiles, REPO_ROOT, STATE_DIR } from "../cluster/harness/stack";
import { parseAuditEvent } from "@/lib/admission/audit/audit";
import { IDLE_SOCKET_MS } from "../server/kube/client";
import { CpuAccount, type CpuShares } from "./soak/cpu";

interface SoakOptions {
  minutes: number;
  streams: number;
  users: number;
  eventsPerSecond: number;
  /** Each user's pause between two requests. */
  userIntervalMs: number;
  /** Seconds a stream may take to be live and converged after a fault (the issue's 5 s). */
  resumeBudgetS: number;
  /** RSS and fds may grow this much from warm-up to the end (0.1: 10 %). */
  growthTolerance: number;
  /** Real Chromium tabs, each on one of TAB_PAGES of pg-1 (0: none). */
  tabs: number;
  /** Seconds a tab may take to say "live" again after a fault's dependency is back. */
  tabBudgetS: number;
  /** Heap snapshots of pg-2 after the warm-up and at the end, and what grew between them. */
  heap: boolean;
}

export function parseSoakOptions(argv: string[]): SoakOptions {
  const num = (flag: string, dflt: number) => {
    const i = argv.indexOf(flag);
    if (i === -1) return dflt;
    const n = Number(argv[i + 1]);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} needs a positive number`);
    return n;
  };
  const full = argv.includes("--full");
  // `--ci`: the regression run CI can afford — 5 minutes, every fault once, the defaults' load.
  if (argv.includes("--ci") && argv.includes("--minutes"))
    throw new Error("--ci runs 5 minutes; leave --minutes out");
  return {
    minutes: num("--minutes", 5),
    streams: num("--streams", full ? 200 : 40),
    users: num("--users", full ? 50 : 10),
    eventsPerSecond: num("--events", full ? 4000 : 200),
    userIntervalMs: num("--user-interval-ms", 5000),
    resumeBudgetS: num("--resume-budget-s", 5),
    growthTolerance: num("--growth-tolerance", 0.1),
    tabs: argv.includes("--no-tabs") ? 0 : Math.min(TAB_PAGES.length, num("--tabs", 5)),
    tabBudgetS: num("--tab-budget-s", 60),
    heap: argv.includes("--heap"),
  };
}

/** The decisions' table (server/decisions/store/schema.ts, which only the server may import). */
const TABLE = "admission_calls";

const T0 = Date.now();
/** Each line with the seconds since the harness started (where the time goes). */
const log = (l: string) =>
  process.stderr.write(`[${((Date.now() - T0) / 1000).toFixed(0).padStart(4)} s] ${l}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const WATCHED = [
  "admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
  "admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
  "core/v1/namespaces",
];
const LIST_PATHS: Record<string, string> = {
  "admissionregistration.k8s.io/v1/validatingwebhookconfigurations":
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
  "admissionregistration.k8s.io/v1/mutatingwebhookconfigurations":
    "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
  "core/v1/namespaces": "/api/v1/namespaces",
};
const PAGES = ["/", "/webhooks", "/policies", "/decisions", "/namespaces", "/health"];
/** The tabs' pages: each has the live mark (components/live/live-indicator.tsx). */
const TAB_PAGES = ["/webhooks", "/decisions", "/namespaces", "/policies", "/deadlocks"];
const APIS = [
  "/api/resources/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
  "/api/resources/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
  "/api/decisions?limit=50",
  "/api/resources/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
];

/** Writes to a watched collection while the run lasts, so streams have changes to follow. */
class Churn {
  private paused = false;
  private stopped = false;
  private busy: Promise<unknown> = Promise.resolve();
  private loop: Promise<void> | undefined;
  writes = 0;
  constructor(private readonly s: SoakStack) {}
  start(): void {
    this.loop = (async () => {
      let n = 0;
      while (!this.stopped) {
        if (!this.paused) {
          const name = `soak-churn-${n % 6}`;
          const p = `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`;
          const step = Math.floor(n / 6) % 3;
          this.busy = (
            step === 0
              ? this.s.kube(
                  "POST",
                  "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
                  {
                    apiVersion: "admissionregistration.k8s.io/v1",
                    kind: "ValidatingWebhookConfiguration",
                    metadata: { name, labels: { soak: "0" } },
                    webhooks: [],
                  },
                )
              : step === 1
                ? this.s.kube("PATCH", p, { metadata: { labels: { soak: String(n) } } })
                : this.s.kube("DELETE", p)
          )
            .then(() => this.writes++)
            .catch(() => undefined);
          await this.busy;
          n++;
        }
        await sleep(1000);
      }
    })();
  }
  async pause(): Promise<void> {
    this.paused = true;
    await this.busy;
  }
  resume(): void {
    this.paused = false;
  }
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}

interface FaultRecord {
  name: string;
  start: number;
  recovered: number;
  end: number;
  /** Replicas whose connections are refused during it (a kill). */
  down?: string;
  note: string;
  /** Seconds from `recovered` until each stream was live and converged. */
  resume: { maxS: number; p95S: number; notResumed: number; relisted: number };
  /** What each browser tab's live mark did. */
  tabs?: TabOutcome[];
  /** The fault cuts these tabs' data: each must have said it was not live. */
  cutsTabs?: (path: string) => boolean;
}

/**
 * Whether a break-glass episode's stored state is an end. "reverting" is a revert under way (and
 * back to "active" when it fails): not an end.
 */
function episodeEnded(state: string | undefined): boolean {
  return state === "reverted" || state === "kept" || state === "closed";
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

export async function runSoak(o: SoakOptions): Promise<{
  figures: Array<{ bench: string; value: number; unit: string }>;
  violations: string[];
}> {
  const startedAt = Date.now();
  const runId = `soak-${startedAt.toString(36)}-`;
  const s = await startSoakStack(log, { heapSignal: o.heap });
  const heapDir = path.join(STATE_DIR, "soak-heap");
  if (o.heap) {
    rmSync(heapDir, { recursive: true, force: true });
    mkdirSync(heapDir, { recursive: true });
  }
  const heapFiles: string[] = [];
  /** When pg-2 was paused writing a heap snapshot (its answers then may fail). */
  const heapPauses: Array<[number, number]> = [];
  const violations: string[] = [];
  const faults: FaultRecord[] = [];
  const answers: Answer[] = [];
  const streams: LiveStream[] = [];
  const users: User[] = [];
  let churn: Churn | undefined;
  let sender: AuditSender | undefined;
  const usage = new Map<string, Array<{ at: number; pid: number; rssMb: number; fds: number }>>();
  let sampler: NodeJS.Timeout | undefined;
  let cpuShares: CpuShares | undefined;
  let glassPoll: NodeJS.Timeout | undefined;
  let tabs: Tabs | undefined;
  let tabsOpening: Promise<Tabs | undefined> | undefined;
  try {
    const [p1, p2, sq] = s.replicas as [Replica, Replica, Replica];
    const urlOf = (r: Replica) => () => r.dashboard.url;

    // Sessions: two in three users on the PostgreSQL replicas (a session there is good on both),
    // the rest on the SQLite one.
    // Each user signs in from a loopback address of its own (127.0.0.2 on), as admins on a
    // network would: a replica takes 10 sign-ins a minute from one address
    // (server/auth/sign-in.ts). Past that, the sign-in waits as its 429 says.
    const signIn = async (r: Replica, from?: string): Promise<string> => {
      for (let attempt = 1; ; attempt++) {
        const res = await postFrom(
          `${r.dashboard.url}/api/session`,
          { ...policyHeaders(SHARED_CONTEXT), "content-type": "application/json" },
          JSON.stringify({ token: s.info.tokens.admin }),
          from,
        );
        if (res.status === 200) return sessionCookieOf(res);
        const text = await res.text();
        let wait: unknown;
        try {
          wait = (JSON.parse(text) as { details?: { retryAfterSeconds?: unknown } }).details
            ?.retryAfterSeconds;
        } catch {
          wait = undefined; // not the dashboard's JSON error
        }
        if (res.status !== 429 || typeof wait !== "number" || attempt >= 5)
          throw new Error(`sign-in on ${r.name}: ${res.status} ${text}`);
        log(`soak: sign-in on ${r.name} limited: again in ${wait} s`);
        await sleep(wait * 1000);
      }
    };
    const sessions: Array<{ cookie: string; replicas: Replica[] }> = [];
    for (let i = 0; i < o.users; i++) {
      const onSqlite = i % 3 === 2;
      const cookie = await signIn(onSqlite ? sq : i % 2 === 0 ? p1 : p2, userAddress(i));
      sessions.push({ cookie, replicas: onSqlite ? [sq] : [p1, p2] });
    }
    for (const [i, sess] of sessions.entries()) {
      const u = new User(
        sess.replicas.map((r) => ({ name: r.name, url: urlOf(r) })),
        sess.cookie,
        o.userIntervalMs,
        PAGES,
        APIS,
        (a) => answers.push(a),
      );
      users.push(u);
      void i;
    }
    for (let j = 0; j < o.streams; j++) {
      const sess = sessions[j % sessions.length] as (typeof sessions)[number];
      const r = sess.replicas[Math.floor(j / sessions.length) % sess.replicas.length] as Replica;
      const st = new LiveStream(j, urlOf(r), sess.cookie, WATCHED);
      (st as LiveStream & { replica?: string }).replica = r.name;
      streams.push(st);
    }
    const targets: SinkTarget[] = [
      { name: p1.name, store: "postgres", url: urlOf(p1) },
      { name: p2.name, store: "postgres", url: urlOf(p2) },
      { name: p1.name, store: "postgres", url: urlOf(p1) },
      { name: p2.name, store: "postgres", url: urlOf(p2) },
      { name: sq.name, store: "sqlite", url: urlOf(sq) },
    ];
    const batchSize = Math.max(10, Math.min(200, Math.round(o.eventsPerSecond / 20)));
    sender = new AuditSender(targets, s.info.auditToken, runId, o.eventsPerSecond, batchSize, 16);
    churn = new Churn(s);

    log(
      `soak: load — ${o.streams} live streams, ${o.users} users (one request each ${o.userIntervalMs} ms), ${o.eventsPerSecond} audit events/s in batches of ${batchSize}, the demo's traffic; ${o.minutes} min`,
    );
    const apiserverPort = Number(new URL(s.info.server).port);
    const idleBefore = new Map(
      await Promise.all(
        s.replicas.map(
          async (r) =>
            [
              r.name,
              {
                pid: r.dashboard.pid,
                fds: await idleFds(r.dashboard.url, r.dashboard.pid, apiserverPort),
              },
            ] as const,
        ),
      ),
    );
    // The browser tabs, on pg-1 (the replica the schedule kills), opened during the warm-up.
    if (o.tabs > 0) {
      const tabCookie = await signIn(p1);
      tabsOpening = Tabs.open(p1.dashboard.url, tabCookie, TAB_PAGES.slice(0, o.tabs)).catch(
        (e: unknown) => {
          violations.push(`the browser tabs did not open and go live: ${String(e)}`);
          return undefined;
        },
      );
    }
    // Streams and audit batches need neither the demo's set-up nor its traffic: they start while
    // the set-up finishes; users (pages that show it) and the churn once it is done.
    const loadStart = Date.now();
    for (const st of streams) st.start();
    sender.start();
    await s.ready;
    log("soak: the demo's set-up done; its traffic, the users and the churn start");
    // Two configurations for break-glass episodes across the clock jump (their hook matches
    // nothing the traffic writes).
    for (const name of GLASS_CONFIGS) {
      const res = await untilAdmitted(() =>
        s.kube(
          "POST",
          "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
          glassConfiguration(name),
        ),
      );
      if (res.status !== 201) throw new Error(`creating ${name}: ${res.status} ${res.body}`);
    }
    for (const u of users) u.start();
    churn.start();
    // A replica that exits unless the schedule killed it is a failure; it is started again, as
    // its Deployment would.
    let killing: string | undefined;
    const restarting = new Set<string>();
    // CPU time by part, from the warm-up's end to the load's: the harness's own (its load, and
    // the control plane it started, by descent) and each replica's (by pid, a restart's too).
    const cpu = new CpuAccount(
      () =>
        new Map<number, string>([
          [process.pid, "harness"],
          ...s.replicas.flatMap((r) =>
            r.dashboard.pid === undefined ? [] : [[r.dashboard.pid, r.name] as [number, string]],
          ),
        ]),
    );
    const sample = () => {
      cpu.sample();
      for (const r of s.replicas) {
        const pid = r.dashboard.pid;
        const u = usageOf(pid);
        if (!u && killing !== r.name && !restarting.has(r.name)) {
          violations.push(`${r.name} exited by itself (its log is kept in .portcullis/soak-logs/)`);
          log(`soak: ${r.name} exited by itself; starting it again`);
          restarting.add(r.name);
          void r.dashboard
            .restart()
            .catch((e: unknown) => log(`soak: ${r.name} did not start again: ${String(e)}`))
            .finally(() => restarting.delete(r.name));
        }
        if (!u || pid === undefined) continue;
        const list = usage.get(r.name) ?? [];
        list.push({ at: Date.now(), pid, ...u });
        usage.set(r.name, list);
      }
    };
    sample();
    sampler = setInterval(sample, 5000);

    // The run's minutes and its warm-up count from the load's start; the users and the demo's
    // traffic have run at least 10 s when the warm-up ends.
    const deadline = loadStart + o.minutes * 60_000;
    const warmupMs = Math.max(30_000, Math.min(60_000, o.minutes * 60_000 * 0.1));
    await sleep(Math.max(10_000, loadStart + warmupMs - Date.now()));
    tabs = await tabsOpening;
    if (o.heap && p2.dashboard.pid) {
      const t = Date.now();
      heapFiles.push(await takeHeapSnapshot(p2.dashboard.pid, REPO_ROOT, heapDir, "warm"));
      heapPauses.push([t, Date.now()]);
      log(`soak: heap snapshot of pg-2 after the warm-up: ${heapFiles[0]}`);
    }
    const warmEnd = Date.now();
    if (tabs)
      log(
        `soak: ${o.tabs} browser tabs live on ${p1.name}: ${TAB_PAGES.slice(0, o.tabs).join(", ")}`,
      );

    // Break-glass episodes across pg-2's clock jump: when each was first seen ended in the store.
    const glass: Array<{
      id: string;
      expiresAt: number;
      on: string;
      endedSeen?: number;
      early?: boolean;
    }> = [];
    const pollGlass = async () => {
      const open = glass.filter((g) => g.endedSeen === undefined);
      if (open.length === 0) return;
      const rows = await s.pg
        .query<{ id: string; state: string }>(
          "SELECT id, state FROM break_glass_episodes WHERE id = ANY($1)",
          [open.map((g) => g.id)],
        )
        .catch(() => undefined);
      for (const r of rows ?? []) {
        const g = glass.find((x) => x.id === r.id);
        if (g && episodeEnded(r.state) && g.endedSeen === undefined) g.endedSeen = Date.now();
      }
    };
    glassPoll = setInterval(() => void pollGlass(), 2000);
    const breakGlass = async (r: Replica, cookie: string, name: string, seconds: number) => {
      const answer = await untilAdmitted(async () => {
        const res = await fetch(`${r.dashboard.url}/api/break-glass`, {
          method: "POST",
          headers: { ...policyHeaders(SHARED_CONTEXT), "content-type": "application/json", cookie },
          body: JSON.stringify({
            resource: "validatingwebhookconfigurations",
            name,
            mode: "ignore",
            reason: "soak: a break-glass across a replica's clock jump",
            durationSeconds: seconds,
          }),
        });
        return { status: res.status, body: await res.text() };
      });
      const res = { status: answer.status };
      const body = JSON.parse(answer.body) as { id?: string; expiresAt?: number; message?: string };
      if (res.status !== 201 || !body.id || !body.expiresAt)
        throw new Error(`break-glass on ${r.name}: ${res.status} ${JSON.stringify(body)}`);
      glass.push({ id: body.id, expiresAt: body.expiresAt, on: r.name });
      return body.id;
    };
    const glassStates = async () =>
      new Map(
        (
          await s.pg.query<{ id: string; state: string; attempts: number; outcome: string | null }>(
            "SELECT id, state, attempts, outcome FROM break_glass_episodes WHERE id = ANY($1)",
            [glass.map((g) => g.id)],
          )
        ).map((r) => [r.id, r]),
      );

    /** The apiserver's own state of the watched collections. */
    const apiserverState = async (): Promise<Map<string, Collection>> => {
      const out = new Map<string, Collection>();
      for (const c of WATCHED) {
        const res = await s.kube("GET", LIST_PATHS[c] as string);
        if (res.status !== 200) throw new Error(`listing ${c}: ${res.status}`);
        const list = JSON.parse(res.body) as {
          items: Array<{ metadata: { name: string; namespace?: string; resourceVersion: string } }>;
        };
        out.set(
          c,
          new Map(
            list.items.map((i) => [
              `${i.metadata.namespace ?? ""}/${i.metadata.name}`,
              i.metadata.resourceVersion,
            ]),
          ),
        );
      }
      return out;
    };
    /** How long each stream took, from `since`, to be connected and hold the apiserver's state. */
    const measureResume = async (since: number, syncsBefore: number[]) => {
      await churn?.pause();
      let want: Map<string, Collection>;
      try {
        want = await apiserverState();
      } catch (e) {
        churn?.resume();
        violations.push(`the apiserver could not be listed after a fault: ${String(e)}`);
        return { maxS: Infinity, p95S: Infinity, notResumed: streams.length, relisted: 0 };
      }
      const resumed = new Map<LiveStream, number>();
      const until = Date.now() + 60_000;
      while (resumed.size < streams.length && Date.now() < until) {
        for (const st of streams)
          // A stream holding the apiserver's state has held it since its last change.
          if (!resumed.has(st) && st.matches(want))
            resumed.set(st, Math.min(Date.now(), st.changedAt));
        await sleep(100);
      }
      churn?.resume();
      const secs = [...resumed.values()]
        .map((t) => Math.max(0, t - since) / 1000)
        .sort((a, b) => a - b);
      return {
        maxS: resumed.size < streams.length ? Infinity : (secs[secs.length - 1] ?? 0),
        p95S: percentile(secs, 95),
        notResumed: streams.length - resumed.size,
        relisted: streams.filter((st, i) => st.syncs > (syncsBefore[i] ?? 0)).length,
      };
    };
    const baseline = await measureResume(
      Date.now(),
      streams.map((st) => st.syncs),
    );
    log(
      `soak: warm-up done; every stream converged: ${baseline.notResumed === 0} (${streams.length - baseline.notResumed}/${streams.length})`,
    );
    if (baseline.notResumed > 0)
      violations.push(`${baseline.notResumed} streams never converged before any fault`);
    cpu.start();

    let clockOffsetS = 0;
    // The clock jump comes second: the break-glass episodes around it live through the faults
    // after it (a replica killed, the database down), and pg-2's early timers have time to fire.
    const schedule: Array<{
      name: string;
      down?: string;
      /** The tabs whose data the fault cuts (the decisions page reads the store, not the cluster). */
      cutsTabs?: (path: string) => boolean;
      run: () => Promise<string>;
    }> = [
      {
        name: "apiserver kill -9 + restart",
        cutsTabs: (p) => p !== "/decisions",
        run: async () => {
          await restartApiserver(s.info);
          return "ready again";
        },
      },
      {
        name: "clock +10 min on pg-2",
        run: async () => {
          const p2Cookie = sessions.find((x) => x.replicas.includes(p2))?.cookie ?? "";
          // Started on pg-2 before its clock jumps, 12 minutes: its revert is due 2 minutes
          // after the jump as pg-2 sees it, 12 as everyone else does.
          const firstRound = glass.length === 0;
          if (firstRound) await breakGlass(p2, p2Cookie, GLASS_CONFIGS[0], 12 * 60);
          clockOffsetS += 600;
          writeFileSync(s.clockFile, `+${clockOffsetS}\n`);
          const until = Date.now() + 10_000;
          let skew = 0;
          while (Date.now() < until) {
            const res = await fetch(`${p2.dashboard.url}/api/health`);
            await res.arrayBuffer();
            skew = (Date.parse(res.headers.get("date") ?? "") - Date.now()) / 1000;
            if (skew > clockOffsetS - 30) break;
            await sleep(250);
          }
          if (skew < clockOffsetS - 30)
            violations.push(`pg-2's clock did not move (skew ${skew} s)`);
          // Every session is still good on both PostgreSQL replicas.
          let refused = 0;
          for (const sess of sessions.filter((x) => x.replicas.includes(p2))) {
            for (const r of [p1, p2]) {
              const res = await fetch(`${r.dashboard.url}/api/session`, {
                headers: { ...policyHeaders(SHARED_CONTEXT), cookie: sess.cookie },
              });
              await res.arrayBuffer();
              if (res.status !== 200) refused++;
            }
          }
          if (refused > 0)
            violations.push(`${refused} session checks refused after pg-2's clock jumped`);
          // Started on pg-1 after the jump, 10 min 20 s: pg-2's sweep gives it a timer due 20 s
          // from now by its own clock.
          if (firstRound) await breakGlass(p1, p2Cookie, GLASS_CONFIGS[1], 620);
          return `pg-2 is ${Math.round(skew)} s ahead; sessions refused: ${refused}; break-glass episodes ${glass.map((g) => `${g.id} (on ${g.on}, due in ${Math.round((g.expiresAt - Date.now()) / 1000)} s)`).join(", ")}`;
        },
      },
      {
        name: "etcd compacted, watches resumed from a compacted revision (410 Gone)",
        cutsTabs: (p) => p !== "/decisions",
        run: async () => `compacted to revision ${await compactAndRestart(s.info)}`,
      },
      {
        name: "PostgreSQL stopped 60 s",
        run: async () => {
          await s.pg.halt();
          await sleep(Math.min(60_000, o.minutes * 60_000 * 0.2));
          await s.pg.resume();
          return "accepting connections again";
        },
      },
      {
        name: "replica pg-1 kill -9 + restart",
        down: "pg-1",
        cutsTabs: () => true,
        run: async () => {
          killing = p1.name;
          try {
            await p1.dashboard.kill("SIGKILL");
            await p1.dashboard.restart();
          } finally {
            killing = undefined;
          }
          return `answering again (pid ${p1.dashboard.pid})`;
        },
      },
      {
        name: "SQLite disk full 15 s",
        run: async () => {
          const free = fillDisk(s.sqliteMount);
          await sleep(15_000);
          free();
          return "space freed";
        },
      },
      {
        name: "webhook hangs until its timeout (10 s) for 20 s",
        run: async () => {
          s.seeded.backends.main.program("elbv2-pod", { type: "sleep", seconds: 12 });
          await sleep(20_000);
          s.seeded.backends.main.program("elbv2-pod", { type: "allow" });
          return "answering again";
        },
      },
      {
        name: "audit listener's TLS certificate rotated",
        run: async () => {
          const before = apiserverDecisions(sq);
          const fp = rotateAuditCertificate(s.info);
          const until = Date.now() + 15_000;
          let served = "";
          const listen = s.info.auditTls?.listen ?? "";
          while (Date.now() < until) {
            served = await servedFingerprint(listen, s.info.caFile).catch(() => "");
            if (served === fp) break;
            await sleep(250);
          }
          if (served !== fp)
            violations.push(
              "the audit listener still served the old certificate 15 s after the rotation",
            );
          // The apiserver's batches keep arriving (its traffic goes on).
          const until2 = Date.now() + 30_000;
          while (apiserverDecisions(sq) <= before && Date.now() < until2) await sleep(500);
          const after = apiserverDecisions(sq);
          if (after <= before)
            violations.push(
              "no apiserver decision stored in 30 s after the audit certificate rotation",
            );
          return `new certificate served; apiserver decisions on sqlite ${before} → ${after}`;
        },
      },
    ];

    let k = 0;
    // Each fault is given about this long (it, its recovery and the figures taken after it).
    const slotMs = Math.max(30_000, (deadline - Date.now()) / schedule.length);
    // Every fault once, however short the run; then round again while time is left.
    while (k < schedule.length || Date.now() < deadline - 20_000) {
      const f = schedule[k++ % schedule.length] as (typeof schedule)[number];
      const syncsBefore = streams.map((st) => st.syncs);
      const start = Date.now();
      log(`soak: fault — ${f.name}`);
      let note: string;
      try {
        note = await f.run();
      } catch (e) {
        note = `failed to inject: ${e instanceof Error ? e.message : String(e)}`;
        violations.push(`${f.name}: ${note}`);
      }
      const recovered = Date.now();
      const resume = await measureResume(recovered, syncsBefore);
      const tabOut = tabs ? await tabs.outcome(start, recovered, o.tabBudgetS * 1000) : undefined;
      const rec: FaultRecord = {
        name: f.name,
        start,
        recovered,
        end: Date.now(),
        note,
        resume,
        ...(f.down ? { down: f.down } : {}),
        ...(tabOut ? { tabs: tabOut } : {}),
        ...(f.cutsTabs ? { cutsTabs: f.cutsTabs } : {}),
      };
      if (tabOut) {
        log(`soak:   tabs: ${tabOut.map(tabLine).join("; ")}`);
        for (const t of tabOut) {
          if (t.recoveredS === undefined)
            violations.push(`${f.name}: the ${t.path} tab was not live ${o.tabBudgetS} s after`);
          if (!t.sameDocument)
            violations.push(
              `${f.name}: the ${t.path} tab was loaded again (not recovered by itself)`,
            );
          if (f.cutsTabs?.(t.path) && t.notLive.length === 0)
            violations.push(
              `${f.name}: the ${t.path} tab went on saying "live" while its data was cut`,
            );
        }
      }
      faults.push(rec);
      log(
        `soak:   ${note}; streams live and converged after ${resume.maxS.toFixed(1)} s at most (p95 ${resume.p95S.toFixed(1)} s), ${resume.relisted} relisted, ${resume.notResumed} never`,
      );
      if (resume.maxS > o.resumeBudgetS)
        violations.push(
          `${f.name}: a stream took ${resume.maxS.toFixed(1)} s (> ${o.resumeBudgetS} s) to resume and converge${resume.notResumed ? `, ${resume.notResumed} never did` : ""}`,
        );
      if (k >= schedule.length && Date.now() > deadline - slotMs / 2) break;
      await sleep(Math.max(3_000, Math.min(start + slotMs - Date.now(), deadline - Date.now())));
    }

    // ---- the end: stop the load, drain the sender, count -----------------------------------
    log("soak: stopping the load; draining the audit sender");
    clearInterval(sampler);
    sample();
    cpuShares = cpu.shares();
    sender.stopGenerating();
    for (const u of users) await u.stop();
    const drained = await sender.drain(120_000);
    if (!drained)
      violations.push(
        `the audit sender could not deliver ${sender.backlog()} events in 2 minutes after the load stopped`,
      );
    const final = await measureResume(
      Date.now(),
      streams.map((st) => st.syncs),
    );
    if (final.notResumed > 0)
      violations.push(`${final.notResumed} streams did not hold the apiserver's final collections`);
    // Break-glass across the clock jump: none ended before its expiry; one still due is reverted
    // now by hand; one past its expiry was reverted on time — each exactly once.
    const glassLines: string[] = [];
    await pollGlass();
    if (glass.length > 0) {
      const tabCookie = sessions.find((x) => x.replicas.includes(p1))?.cookie ?? "";
      for (const g of glass) {
        if (g.endedSeen !== undefined && g.endedSeen < g.expiresAt)
          violations.push(
            `break-glass ${g.id} (on ${g.on}) ended ${((g.expiresAt - g.endedSeen) / 1000).toFixed(0)} s before its expiry`,
          );
        if (g.endedSeen === undefined && Date.now() < g.expiresAt) {
          const res = await fetch(`${p1.dashboard.url}/api/break-glass/${g.id}/revert`, {
            method: "POST",
            headers: {
              ...policyHeaders(SHARED_CONTEXT),
              "content-type": "application/json",
              cookie: tabCookie,
            },
            body: "{}",
          });
          await res.arrayBuffer();
          g.early = true;
          if (res.status !== 200)
            violations.push(`break-glass ${g.id}: early revert answered ${res.status}`);
        } else if (g.endedSeen === undefined) {
          // Due: its revert on time is at most a sweep and a lease away.
          const until = Date.now() + 60_000;
          while (g.endedSeen === undefined && Date.now() < until) {
            await sleep(1000);
            await pollGlass();
          }
        }
      }
      const states = await glassStates();
      for (const g of glass) {
        const st = states.get(g.id);
        const ended = episodeEnded(st?.state);
        // A failed revert records its error in the outcome: say it, so a run that fails says why.
        let lastError: unknown;
        try {
          lastError = st?.outcome
            ? (JSON.parse(st.outcome) as { error?: unknown }).error
            : undefined;
        } catch {
          lastError = undefined;
        }
        const why = typeof lastError === "string" ? ` (last revert failed: ${lastError})` : "";
        const line = `${g.id} on ${g.on}: ${st?.state ?? "missing"}${why} after ${st?.attempts ?? 0} revert(s), ${g.early ? "reverted early at the end (still active, " + Math.round((g.expiresAt - Date.now()) / 1000) + " s before its expiry)" : g.endedSeen ? `ended ${((g.endedSeen - g.expiresAt) / 1000).toFixed(0)} s after its expiry` : "not ended"}`;
        glassLines.push(line);
        if (!ended || Number(st?.attempts) !== 1)
          violations.push(`break-glass ${line} (want: ended, one revert)`);
      }
    }
    for (const st of streams) await st.stop();
    const streamsStopped = Date.now();
    await churn.stop();
    await tabs?.close();
    // Open file descriptors with no load, before and after: what the run left open, once each
    // replica holds no stream and its hub has stopped the watches no stream uses any more
    // (PORTCULLIS_WATCH_IDLE_MS after the last one went). A watch a monitor keeps (the reconcile
    // fights' watches stay an hour after the last read, server/webhooks/fight-monitor.ts) is
    // not the run's: the count is done once the number of watches has held still that long.
    const idleUntil = Date.now() + 90_000;
    const settledHolding = new Map<string, string>();
    for (const r of s.replicas) {
      let last = -1;
      let since = Date.now();
      for (;;) {
        const h = await fetch(`${r.dashboard.url}/api/health`)
          .then((res) => res.json() as Promise<{ upstreamWatches: number; liveStreams: number }>)
          .catch(() => undefined);
        if (h && h.upstreamWatches !== last) {
          last = h.upstreamWatches;
          since = Date.now();
        }
        const settled =
          h !== undefined &&
          h.liveStreams === 0 &&
          (h.upstreamWatches === 0 || Date.now() - since > 12_000);
        if (settled || Date.now() > idleUntil) {
          settledHolding.set(
            r.name,
            h ? `${h.liveStreams} streams, ${h.upstreamWatches} watches` : "no answer",
          );
          if (!settled)
            violations.push(
              `${r.name} still held ${settledHolding.get(r.name)} 90 s after the load stopped`,
            );
          break;
        }
        await sleep(500);
      }
    }
    if (o.heap && p2.dashboard.pid && heapFiles.length === 1) {
      heapFiles.push(await takeHeapSnapshot(p2.dashboard.pid, REPO_ROOT, heapDir, "idle"));
      log(`soak: heap snapshot of pg-2 with no load after the run: ${heapFiles[1]}`);
    }
    // Connections to the apiserver that a replica's kube client keeps alive between requests are
    // not the run's either: each closes 30 s after its last request (server/kube/client.ts,
    // IDLE_SOCKET_MS), and the streams' access rechecks, every 15 s and many at once, keep a
    // pool of them open until the streams stop. The count waits until each replica's kube client
    // holds none (kept alive or carrying a request: /api/health), or until every connection the
    // load used has been idle past that timeout (what is still kept alive then carries requests
    // the replica makes with no load, or was left open: told apart below by its silence); and, at
    // most 60 s, until every connection to the apiserver it has is one its kube client holds (the
    // watches' own). It leaves the pool out, before the load too. That the pool closes what it
    // keeps alive is server/kube/connections.int.test.ts's.
    const fdsIdle = new Map<string, [number, number] | undefined>();
    const connectionsIdle = new Map<string, string>();
    const drainedBy = Date.now() + 60_000;
    const loadIdleBy = streamsStopped + IDLE_SOCKET_MS + 5_000;
    const grown = (before: number, now: number) =>
      now > before * (1 + o.growthTolerance) && now - before > 5;
    const held = (f: IdleFds | undefined) =>
      f?.held
        ? `${f.held.idle} kept alive, ${f.held.inUse} in use, ${f.held.own} watches' own${unheldConnections(f) ? `, ${unheldConnections(f)} its kube client does not hold` : ""}`
        : "not reported";
    for (const r of s.replicas) {
      const read = () => idleFds(r.dashboard.url, r.dashboard.pid, apiserverPort);
      let after = await read();
      const since = () =>
        `${((Date.now() - streamsStopped) / 1000).toFixed(1)} s after the streams stopped`;
      const first = held(after);
      log(`soak: ${r.name} holds connections to the apiserver: ${first}, ${since()}`);
      while (
        after &&
        ((pooledConnections(after) > 0 && Date.now() < loadIdleBy) ||
          unheldConnections(after) !== 0) &&
        Date.now() < drainedBy
      ) {
        await sleep(500);
        after = (await read()) ?? after;
      }
      // A request caught in flight by the last look is not one that hangs: looked at again.
      for (let i = 0; i < 10 && (after?.held?.inUse ?? 0) > 0; i++) {
        await sleep(500);
        after = (await read()) ?? after;
      }
      // Kept alive past the wait: by requests the replica still makes with no load (sent within
      // the last 30 s), or left open (silent longer). Reported, and left out of the count.
      const silence =
        after && pooledConnections(after) > 0
          ? `; seconds since each connection to the apiserver last sent / received: ${connectionIdleTimes(r.dashboard.pid, apiserverPort).join(", ")}`
          : "";
      if (held(after) !== first || silence)
        log(
          `soak: ${r.name} holds connections to the apiserver: ${held(after)}, ${since()}${silence}`,
        );
      if (after?.held && after.held.inUse > 0)
        violations.push(
          `${r.name}: its kube client still had requests to the apiserver in flight after 60 s with no load (${held(after)}; a request gives up after 30 s of silence${silence})`,
        );
      if (after && unheldConnections(after) !== 0)
        violations.push(
          `${r.name}: ${after.apiserver} connections to the apiserver open, its kube client holds ${held(after)}`,
        );
      const before = idleBefore.get(r.name);
      const was = before && before.pid === r.dashboard.pid ? before.fds : undefined;
      connectionsIdle.set(
        r.name,
        `to the apiserver ${was ? `${held(was)} → ` : ""}${held(after)}${silence}`,
      );
      if (!was || !after) {
        fdsIdle.set(r.name, undefined);
        continue;
      }
      // Without the pool's connections: what it keeps alive is not left open.
      const [b, a] = [was, after].map((f) => f.fds - pooledConnections(f)) as [number, number];
      fdsIdle.set(r.name, [b, a]);
      if (grown(b, a)) {
        // What the extra ones are, kind by kind (before → after).
        const kinds = [...new Set([...Object.keys(was.kinds), ...Object.keys(after.kinds)])]
          .filter((k) => (was.kinds[k] ?? 0) !== (after.kinds[k] ?? 0))
          .map((k) => `${k} ${was.kinds[k] ?? 0} → ${after.kinds[k] ?? 0}`)
          .join(", ");
        violations.push(
          `${r.name}: ${a} fds open with no load after the run, ${b} before it, the kube client's kept-alive connections left out (${kinds}; connections ${connectionsIdle.get(r.name)})`,
        );
      }
    }

    // The apiserver's own path: what its audit log holds against what the SQLite replica stored.
    await s.traffic.stop();
    await sleep(5_000);
    const viaApiserver = apiserverPath(s, sq);

    // Decisions stored vs sent, by store.
    const pgRows = await s.pg.query<{ n: string; d: string }>(
      `SELECT count(*) AS n, count(DISTINCT audit_id) AS d FROM ${TABLE} WHERE audit_id LIKE $1`,
      [`${runId}%`],
    );
    const pgStored = Number(pgRows[0]?.n ?? 0);
    const pgDistinct = Number(pgRows[0]?.d ?? 0);
    const db = new Database(path.join(sq.dashboard.dataDir, "decisions.sqlite"), {
      readonly: true,
    });
    const sqRow = db
      .prepare(
        `SELECT count(*) AS n, count(DISTINCT audit_id) AS d FROM ${TABLE} WHERE audit_id LIKE ?`,
      )
      .get(`${runId}%`) as { n: number; d: number };
    db.close();
    const sent = sender.acked;
    const lost = Math.max(0, sent.postgres - pgDistinct) + Math.max(0, sent.sqlite - sqRow.d);
    const dup = pgStored - pgDistinct + (sqRow.n - sqRow.d);
    const extra = Math.max(0, pgDistinct - sent.postgres) + Math.max(0, sqRow.d - sent.sqlite);
    if (lost > 0) violations.push(`${lost} decisions acknowledged but not stored`);
    if (dup > 0) violations.push(`${dup} decisions stored twice`);
    if (extra > 0)
      violations.push(
        `${extra} decisions stored that were never acknowledged (a lost acknowledgement is fine, this is not)`,
      );

    // 5xx and failed requests: only a documented 503, with its message, while a dependency is down.
    const grace = 10_000;
    // Faults whose window (from its start to 10 s after it was over) the request overlaps, from
    // its start to its answer: a page load in flight when a replica was killed is cut by the kill,
    // though it began seconds before. Two when one begins right after the other.
    const during = (a: Answer) =>
      faults.filter((f) => a.at + a.ms >= f.start - 1000 && a.at <= f.recovered + grace);
    const unexpected: string[] = [];
    const misleading: string[] = [];
    const allowed = new Map<string, number>();
    for (const a of answers) {
      if (a.status > 0 && a.status < 500) continue;
      if (
        a.replica === p2.name &&
        heapPauses.some(([from, to]) => a.at >= from - 1000 && a.at <= to + grace)
      )
        continue;
      const open = during(a);
      // The fault that explains the answer: a documented 503, or the killed replica's silence.
      const f =
        open.find(
          (x) =>
            (a.status === 503 && (a.message ?? "") !== "") ||
            (a.status === 0 && x.down === a.replica),
        ) ?? open[0];
      const ok =
        f !== undefined &&
        open.some((x) => x === f) &&
        (a.status === 503 ? (a.message ?? "") !== "" : a.status === 0 && f.down === a.replica);
      const line =
        `${a.status || "no answer"} ${a.replica} ${a.path.split("?")[0]}: ${a.message ?? ""}`.slice(
          0,
          220,
        );
      if (ok && f.name.startsWith("PostgreSQL") && /apiserver/.test(a.message ?? ""))
        misleading.push(line);
      if (ok) allowed.set(`${f.name} — ${line}`, (allowed.get(`${f.name} — ${line}`) ?? 0) + 1);
      else unexpected.push(`${new Date(a.at).toISOString()} ${f ? `(${f.name}) ` : ""}${line}`);
    }
    if (misleading.length > 0)
      violations.push(
        `${misleading.length} 503s while PostgreSQL was down blamed the apiserver, e.g. ${misleading[0]}`,
      );
    const unauthorized = answers.filter((a) => a.status === 401).length;
    if (unexpected.length > 0)
      violations.push(`${unexpected.length} 5xx or failed requests outside the documented 503s`);
    if (unauthorized > 0)
      violations.push(`${unauthorized} requests answered 401 (a session ended early)`);

    // RSS and fds after warm-up: start, worst, end, per replica (a restarted one from its restart).
    const resources: Array<{
      replica: string;
      rss: [number, number, number];
      fds: [number, number, number];
    }> = [];
    let growth = 0;
    for (const [name, list] of usage) {
      const lastPid = list[list.length - 1]?.pid;
      const restartedAt = faults.find((f) => f.down === name)?.recovered ?? 0;
      const from = Math.max(warmEnd, restartedAt + (restartedAt ? warmupMs : 0));
      const seq = list.filter((u) => u.pid === lastPid && u.at >= from);
      if (seq.length < 2) continue;
      // Start and end are medians of three samples (15 s), under the same load.
      const median = (xs: number[]) =>
        [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
      const head = seq.slice(0, 3);
      const tail = seq.slice(-3);
      const rss: [number, number, number] = [
        median(head.map((u) => u.rssMb)),
        Math.max(...seq.map((u) => u.rssMb)),
        median(tail.map((u) => u.rssMb)),
      ];
      const fds: [number, number, number] = [
        median(head.map((u) => u.fds)),
        Math.max(...seq.map((u) => u.fds)),
        median(tail.map((u) => u.fds)),
      ];
      resources.push({ replica: name, rss, fds });
      growth = Math.max(growth, rss[2] / rss[0] - 1);
      // Five minutes is too short for a heap to settle: short runs report RSS, long ones assert it.
      if (o.minutes >= 15 && rss[2] > rss[0] * (1 + o.growthTolerance))
        violations.push(
          `${name}: RSS grew ${Math.round((rss[2] / rss[0] - 1) * 100)} % after warm-up (${rss[0].toFixed(0)} → ${rss[2].toFixed(0)} MB)`,
        );
    }

    const lat = (kind: "page" | "api") =>
      answers
        .filter((a) => a.kind === kind && a.status > 0)
        .map((a) => a.ms)
        .sort((x, y) => x - y);
    const pages = lat("page");
    const apis = lat("api");
    const seconds = ((sender.stoppedAt || Date.now()) - sender.startedAt) / 1000;
    const achievedEvents = (sent.postgres + sent.sqlite) / seconds;
    const traffic = s.traffic.counts();
    const trafficTotal = Object.values(traffic).reduce((a, b) => a + b, 0);

    // ---- the report --------------------------------------------------------------------------
    const out: string[] = [];
    out.push(
      "",
      `soak: ${((Date.now() - startedAt) / 60_000).toFixed(1)} min, ${faults.length} faults`,
    );
    out.push(
      `load: ${o.streams} streams (${streams.reduce((n, st) => n + st.opens, 0)} connections opened, ${streams.reduce((n, st) => n + st.syncs, 0)} snapshots, ${streams.reduce((n, st) => n + st.errors, 0)} ERROR messages), ${o.users} users (${answers.length} requests, ${(answers.length / seconds).toFixed(1)}/s), audit ${achievedEvents.toFixed(0)} events/s achieved of ${o.eventsPerSecond} asked, demo traffic ${trafficTotal} writes (${(trafficTotal / seconds).toFixed(1)}/s; by status ${JSON.stringify(traffic)}), ${churn.writes} watched-collection writes`,
    );
    out.push(
      `decisions: sent ${sent.postgres + sent.sqlite} (postgres ${sent.postgres}, sqlite ${sent.sqlite}); stored postgres ${pgStored} rows / ${pgDistinct} distinct, sqlite ${sqRow.n} / ${sqRow.d}; lost ${lost}, duplicated ${dup}; refused tries ${JSON.stringify(Object.fromEntries(sender.refusals))}`,
    );
    for (const [m, n] of sender.messages) out.push(`  sink 5xx ×${n}: ${m.slice(0, 200)}`);
    out.push(
      `decisions through the apiserver's audit webhook (informational: its buffer dies with each kill -9, and it gives up a batch after its retries): ${viaApiserver.logged} requests with decisions in its audit log, ${viaApiserver.stored} stored on sqlite, ${viaApiserver.missing} missing, ${viaApiserver.extra} stored but not in the log`,
    );
    out.push("faults (streams live and converged after the dependency was back):");
    for (const f of faults)
      out.push(
        `  ${f.name}: ${((f.recovered - f.start) / 1000).toFixed(1)} s to recover; streams max ${f.resume.maxS.toFixed(1)} s, p95 ${f.resume.p95S.toFixed(1)} s, relisted ${f.resume.relisted}/${streams.length}, never ${f.resume.notResumed} — ${f.note}`,
      );
    if (faults.some((f) => f.tabs)) {
      out.push(
        "browser tabs (states other than live seen from the fault's start; seconds from the dependency back to live; reloaded?):",
      );
      for (const f of faults)
        if (f.tabs)
          out.push(
            `  ${f.name}: ${f.tabs.filter((t) => t.notLive.length > 0).length}/${f.tabs.length} showed not live${f.cutsTabs ? ` (${f.tabs.filter((t) => f.cutsTabs?.(t.path)).length} whose data it cuts must)` : ""}; ${f.tabs.map(tabLine).join("; ")}`,
          );
    }
    if (glassLines.length > 0) {
      out.push("break-glass across pg-2's clock jump:");
      for (const l of glassLines) out.push(`  ${l}`);
    }
    out.push(
      "resources under load after warm-up (start / worst / end); fds with no load before / after the run:",
    );
    for (const r of resources) {
      const idle = fdsIdle.get(r.replica);
      out.push(
        `  ${r.replica}: RSS ${r.rss.map((x) => x.toFixed(0)).join(" / ")} MB, fds ${r.fds.join(" / ")}; idle fds ${idle ? idle.join(" / ") : "n/a (restarted)"} (holding ${settledHolding.get(r.replica) ?? "?"}; connections ${connectionsIdle.get(r.replica) ?? "n/a"})`,
      );
    }
    if (heapFiles.length === 2) {
      const [a, b] = heapFiles.map(summariseHeap) as [HeapSummary, HeapSummary];
      const mb = (n: number) => (n / 2 ** 20).toFixed(1);
      out.push(
        `heap of pg-2 (live objects after a full collection): ${mb(a.totalBytes)} MB after the warm-up under load, ${mb(b.totalBytes)} MB with no load after the run; grew most:`,
      );
      for (const g of heapGrowth(a, b))
        out.push(
          `  ${g.name}: ${g.bytes >= 0 ? "+" : ""}${mb(g.bytes)} MB, ${g.count >= 0 ? "+" : ""}${g.count} objects`,
        );
    }
    if (cpuShares)
      out.push(
        `cpu from the warm-up's end to the load's (${cpuShares.seconds.toFixed(0)} s; % of one core, ${cpuShares.cores} cores): ${cpuShares.parts.map((x) => `${x.part} ${x.pct}`).join(", ")}; the machine ${cpuShares.machineBusyPct} % busy`,
      );
    out.push(
      `latency: pages p50 ${percentile(pages, 50)} / p95 ${percentile(pages, 95)} / p99 ${percentile(pages, 99)} ms (${pages.length}); API p50 ${percentile(apis, 50)} / p95 ${percentile(apis, 95)} / p99 ${percentile(apis, 99)} ms (${apis.length})`,
    );
    out.push(
      `documented 503s and refused connections during faults: ${[...allowed.values()].reduce((a, b) => a + b, 0)}`,
    );
    for (const [m, n] of allowed) out.push(`  ×${n} ${m}`);
    out.push(`unexpected 5xx or failed requests: ${unexpected.length}`);
    for (const u of unexpected.slice(0, 20)) out.push(`  ${u}`);
    out.push(
      violations.length === 0
        ? "soak: PASSED"
        : `soak: FAILED\n${violations.map((v) => `  ✗ ${v}`).join("\n")}`,
    );
    log(out.join("\n"));

    const maxResume = Math.max(0, ...faults.map((f) => f.resume.maxS));
    return {
      violations,
      figures: [
        { bench: "soak-decisions-lost", value: lost, unit: "decisions" },
        { bench: "soak-decisions-duplicated", value: dup, unit: "decisions" },
        { bench: "soak-stream-resume-max-s", value: Number(maxResume.toFixed(1)), unit: "s" },
        { bench: "soak-resource-growth-pct", value: Math.round(growth * 100), unit: "%" },
        { bench: "soak-page-p95-ms", value: percentile(pages, 95), unit: "ms" },
        { bench: "soak-api-p95-ms", value: percentile(apis, 95), unit: "ms" },
        { bench: "soak-audit-events-per-s", value: Math.round(achievedEvents), unit: "events/s" },
        { bench: "soak-unexpected-5xx", value: unexpected.length, unit: "requests" },
        ...(cpuShares
          ? [
              { bench: "soak-machine-busy-pct", value: cpuShares.machineBusyPct, unit: "%" },
              {
                bench: "soak-harness-cpu-pct",
                value: cpuShares.parts.find((x) => x.part === "harness")?.pct ?? 0,
                unit: "% of a core",
              },
            ]
          : []),
      ],
    };
  } finally {
    clearInterval(sampler);
    clearInterval(glassPoll);
    await (tabs ?? (await tabsOpening?.catch(() => undefined)))?.close();
    for (const u of users) await u.stop().catch(() => undefined);
    for (const st of streams) await st.stop().catch(() => undefined);
    await churn?.stop().catch(() => undefined);
    sender?.stopGenerating();
    await s.stop();
  }
}

/**
 * Retries a write the apiserver refuses only because an admission policy cannot resolve its
 * parameter kind yet — for a while after each start of the apiserver, the demo's Gatekeeper
 * policy (failing closed) then denies every write it matches — for up to a minute.
 */
async function untilAdmitted(
  write: () => Promise<{ status: number; body: string }>,
): Promise<{ status: number; body: string }> {
  const until = Date.now() + 60_000;
  for (;;) {
    const res = await write();
    if (!(res.status === 422 && res.body.includes("paramKind")) || Date.now() > until) return res;
    await sleep(1000);
  }
}

/** The configurations the break-glass episodes are started on. */
const GLASS_CONFIGS = ["soak-break-glass-a", "soak-break-glass-b"] as const;

/** A configuration whose one hook (failing closed) matches nothing the run writes. */
function glassConfiguration(name: string): unknown {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name },
    webhooks: [
      {
        name: `a.${name}.example.com`,
        clientConfig: { url: "https://127.0.0.1:9/validate" },
        rules: [
          {
            operations: ["CREATE"],
            apiGroups: ["soak.example.com"],
            apiVersions: ["v1"],
            resources: ["nothings"],
          },
        ],
        failurePolicy: "Fail",
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        timeoutSeconds: 1,
      },
    ],
  };
}

function tabLine(t: TabOutcome): string {
  return `${t.path} ${t.notLive.length ? `${t.notLive.join("/")} for ${t.notLiveS.toFixed(1)} s` : "stayed live"}, ${t.recoveredS === undefined ? "NOT live again" : `live ${t.recoveredS.toFixed(1)} s after the dependency was back`}${t.sameDocument ? "" : ", RELOADED"}`;
}

/** Requests with decisions in the apiserver's audit log against those the SQLite replica stored. */
function apiserverPath(
  s: SoakStack,
  r: Replica,
): { logged: number; stored: number; missing: number; extra: number } {
  const logged = new Set<string>();
  for (const f of auditLogFiles(s.info)) {
    for (const line of readFileSync(f, "utf8").split("\n")) {
      if (!line) continue;
      const e = parseAuditEvent(JSON.parse(line) as unknown);
      if (e && e.decisions.length > 0) logged.add(e.auditID);
    }
  }
  const db = new Database(path.join(r.dashboard.dataDir, "decisions.sqlite"), { readonly: true });
  const stored = new Set(
    (
      db
        .prepare(`SELECT DISTINCT audit_id AS id FROM ${TABLE} WHERE audit_id NOT LIKE 'soak-%'`)
        .all() as Array<{ id: string }>
    ).map((x) => x.id),
  );
  db.close();
  return {
    logged: logged.size,
    stored: stored.size,
    missing: [...logged].filter((id) => !stored.has(id)).length,
    extra: [...stored].filter((id) => !logged.has(id)).length,
  };
}

/** Decisions on the SQLite replica that came from the apiserver (not the harness's batches). */
function apiserverDecisions(r: Replica): number {
  const db = new Database(path.join(r.dashboard.dataDir, "decisions.sqlite"), { readonly: true });
  try {
    return (
      db.prepare(`SELECT count(*) AS n FROM ${TABLE} WHERE audit_id NOT LIKE 'soak-%'`).get() as {
        n: number;
      }
    ).n;
  } finally {
    db.close();
  }
}

// `npx tsx bench/soak.ts --minutes 5`: the run alone, exit 1 on a failed assertion.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const started = Date.now();
  runSoak(parseSoakOptions(process.argv.slice(2)))
    .then(({ figures, violations }) => {
      for (const f of figures) console.log(JSON.stringify(f));
      log(`soak: ${((Date.now() - started) / 60_000).toFixed(1)} min in all`);
      process.exit(violations.length === 0 ? 0 : 1);
    })
    .catch((e: unknown) => {
      log(`soak: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      process.exit(1);
    });
}
