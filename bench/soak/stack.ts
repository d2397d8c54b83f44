/**
 * The soak's deployment: the local control plane (its audit webhook posting to a replica's own
 * TLS listener with a client certificate) with the demo's admission set-up and traffic; a
 * PostgreSQL server; two shared-mode replicas on it (the second under libfaketime, so its clock
 * can be moved) and one on SQLite on a small filesystem of its own (so its disk can be filled), the
 * one the apiserver's audit webhook reaches. And the faults, each of which returns once the
 * dependency it took away is back.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";
import { X509Certificate } from "node:crypto";
import { execFileSync } from "node:child_process";
import { issueServingCert } from "../../cluster/certs";
import { httpsRequest } from "../../cluster/https-json";
import {
  buildDashboard,
  dashboardBuildIsCurrent,
  STATE_DIR,
  startStack,
  type Stack,
  type StackInfo,
} from "../../cluster/harness/stack";
import { seedDemo, type SeededDemo } from "../../cluster/harness/demo-seed";
import { startTraffic, type Traffic } from "../../cluster/harness/demo-traffic";
import {
  admin,
  SHARED_NAMESPACE,
  startSharedDashboard,
  type SharedDashboard,
} from "../../cluster/harness/shared-dashboard";
import { startSoakPostgres, type SoakPostgres } from "./postgres";
import { LIBFAKETIME } from "../../scripts/prerequisites";

export interface Replica {
  name: string;
  store: "postgres" | "sqlite";
  dashboard: SharedDashboard;
}

export interface SoakStack {
  stack: Stack;
  info: StackInfo;
  pg: SoakPostgres;
  replicas: Replica[];
  /** The demo's set-up and its traffic: readable once `ready` has resolved. */
  readonly seeded: SeededDemo;
  readonly traffic: Traffic;
  /**
   * Resolves once the demo's set-up is done and its traffic runs: the stack returns as soon as
   * the replicas answer, so load that needs neither (streams, audit batches) can start meanwhile.
   */
  ready: Promise<void>;
  /** The SQLite replica's filesystem (a tmpfs of its own). */
  sqliteMount: string;
  /** The file libfaketime reads the clock offset of the faked replica from. */
  clockFile: string;
  kube(method: string, p: string, body?: unknown): Promise<{ status: number; body: string }>;
  stop(): Promise<void>;
}

export async function startSoakStack(
  log: (l: string) => void,
  opts: { heapSignal?: boolean } = {},
): Promise<SoakStack> {
  if (!existsSync(LIBFAKETIME)) {
    throw new Error(
      `libfaketime is not installed (${LIBFAKETIME}): apt-get install -y libfaketime`,
    );
  }
  // The replicas serve the production build of the sources as they are (built when it is not).
  if (!dashboardBuildIsCurrent()) await buildDashboard(log);
  const stack = await startStack({ dashboard: false, log, auditSink: "client-certificate" });
  const info = stack.info;
  const cleanups: Array<() => Promise<void>> = [async () => stack.stop()];
  const stopAll = async () => {
    for (const c of cleanups.reverse()) await c().catch((e: unknown) => log(`soak: ${String(e)}`));
  };
  try {
    const ca = readFileSync(info.caFile);
    const kube = (method: string, p: string, body?: unknown) =>
      httpsRequest(`${info.server}${p}`, { method, body, ca, token: info.tokens.admin });
    // The demo's set-up (half a minute, mostly the apiserver's answers) beside the database and
    // the replicas' start: the replicas need neither the demo nor each other to start.
    log("soak: the demo's admission set-up; PostgreSQL and the replicas beside it");
    const seeding = seedDemo(info, log);
    seeding.then(
      (seeded) => cleanups.push(() => seeded.close()),
      () => undefined,
    );

    const pg = await startSoakPostgres();
    cleanups.push(() => pg.stop());
    const sessionSecret = randomBytes(32).toString("hex");

    // The SQLite replica's data on a filesystem of its own, which the disk fault fills.
    const sqliteMount = mkdtempSync(path.join(os.tmpdir(), "portcullis-soak-sqlite-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=512m", "tmpfs", sqliteMount]);
    cleanups.push(async () => {
      execFileSync("umount", ["-l", sqliteMount]);
      rmSync(sqliteMount, { recursive: true, force: true });
    });
    // The audit listener's certificate in files the rotation fault rewrites.
    const tlsDir = path.join(info.dir, "soak-audit-tls");
    mkdirSync(tlsDir);
    const auditTls = info.auditTls;
    if (!auditTls) throw new Error("the control plane has no audit client certificate");
    copyFileSync(auditTls.certFile, path.join(tlsDir, "tls.crt"));
    copyFileSync(auditTls.keyFile, path.join(tlsDir, "tls.key"));

    const clockFile = path.join(info.dir, "soak-faketime");
    writeFileSync(clockFile, "+0\n");

    // `--heap`: each replica writes a heap snapshot when sent SIGUSR2 (bench/soak/heap.ts).
    // A watch no stream uses is stopped after 10 s (30 by default): the idle count at the end
    // waits for that, and streams that reconnect after a fault do so within a few seconds.
    // Retention keeps 1,000,000 decisions by default: a full run sends several million, and what
    // retention deletes would count as lost.
    const heap: Record<string, string> = {
      PORTCULLIS_WATCH_IDLE_MS: "10000",
      PORTCULLIS_DECISIONS_MAX_ROWS: "1000000000",
      ...(opts.heapSignal ? { NODE_OPTIONS: "--heapsnapshot-signal=SIGUSR2" } : {}),
    };
    // Deployed as the chart does with breakGlass.revertOnExpiry=true: the replicas' service
    // accounts may write a break-glass's revert on time (docs/operating.md, "Who writes the
    // revert"). Without it the revert on expiry is refused and retried, as documented.
    await admin(info, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "portcullis-soak-revert-on-expiry" },
      rules: [
        {
          apiGroups: ["admissionregistration.k8s.io"],
          resources: [
            "mutatingwebhookconfigurations",
            "validatingwebhookconfigurations",
            "validatingadmissionpolicybindings",
            "mutatingadmissionpolicybindings",
          ],
          verbs: ["update"],
        },
        {
          apiGroups: ["rbac.authorization.k8s.io"],
          resources: ["clusterroles", "clusterrolebindings"],
          verbs: ["delete"],
        },
      ],
    });
    await admin(info, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "portcullis-soak-revert-on-expiry" },
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: "portcullis-soak-revert-on-expiry",
      },
      subjects: [
        {
          apiGroup: "rbac.authorization.k8s.io",
          kind: "Group",
          name: `system:serviceaccounts:${SHARED_NAMESPACE}`,
        },
      ],
    });
    const started = await Promise.allSettled([
      startSharedDashboard(info, { databaseUrl: pg.url, sessionSecret, env: heap }),
      startSharedDashboard(info, {
        databaseUrl: pg.url,
        sessionSecret,
        env: {
          ...heap,
          LD_PRELOAD: LIBFAKETIME,
          FAKETIME_TIMESTAMP_FILE: clockFile,
          FAKETIME_CACHE_DURATION: "1",
          // Timers run on the monotonic clock: only the wall clock jumps, as with NTP or a VM resumed.
          DONT_FAKE_MONOTONIC: "1",
        },
      }),
      startSharedDashboard(info, {
        dataDir: path.join(sqliteMount, "data"),
        env: {
          ...heap,
          PORTCULLIS_AUDIT_TLS_LISTEN: auditTls.listen,
          PORTCULLIS_AUDIT_TLS_CERT_FILE: path.join(tlsDir, "tls.crt"),
          PORTCULLIS_AUDIT_TLS_KEY_FILE: path.join(tlsDir, "tls.key"),
          PORTCULLIS_AUDIT_CLIENT_CA_FILE: auditTls.clientCaFile,
          PORTCULLIS_AUDIT_CLIENT_NAMES: auditTls.clientName,
        },
      }),
    ]);
    for (const r of started) if (r.status === "fulfilled") cleanups.push(() => r.value.stop());
    const failed = started.find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
    const [p1, p2, s] = started.map(
      (r) => (r as PromiseFulfilledResult<SharedDashboard>).value,
    ) as [SharedDashboard, SharedDashboard, SharedDashboard];
    log("soak: replicas up (2 on PostgreSQL, 1 on SQLite)");

    let seeded: SeededDemo | undefined;
    let traffic: Traffic | undefined;
    const ready = seeding.then((sd) => {
      seeded = sd;
      const t = startTraffic(info);
      traffic = t;
      cleanups.push(() => t.stop());
    });
    ready.catch(() => undefined);
    // The restarted apiserver (a process of ours, not the control plane's) goes before etcd.
    cleanups.push(async () => stopApiserver());
    return {
      stack,
      info,
      pg,
      replicas: [
        { name: "pg-1", store: "postgres", dashboard: p1 },
        { name: "pg-2", store: "postgres", dashboard: p2 },
        { name: "sqlite", store: "sqlite", dashboard: s },
      ],
      get seeded(): SeededDemo {
        if (!seeded) throw new Error("the demo's set-up is not done yet (await ready)");
        return seeded;
      },
      get traffic(): Traffic {
        if (!traffic) throw new Error("the demo's traffic has not started yet (await ready)");
        return traffic;
      },
      ready,
      sqliteMount,
      clockFile,
      kube,
      stop: async () => {
        // The replicas' logs outlive the run's directory, for what the report points at.
        const kept = path.join(STATE_DIR, "soak-logs");
        rmSync(kept, { recursive: true, force: true });
        mkdirSync(kept, { recursive: true });
        for (const [name, d] of [
          ["pg-1", p1],
          ["pg-2", p2],
          ["sqlite", s],
        ] as const)
          copyFileSync(d.logFile, path.join(kept, `${name}.log`));
        copyFileSync(
          path.join(info.dir, "kube-apiserver.log"),
          path.join(kept, "kube-apiserver.log"),
        );
        await stopAll();
      },
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}

// ---- the apiserver, killed and started again ------------------------------------------------

let apiserverPid: number | undefined;
let restarted: ChildProcess | undefined;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
}

async function stopApiserver(): Promise<void> {
  const child = restarted;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const t = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(t);
}

/** The running apiserver's pid (the control plane's, or ours after a restart). */
function currentApiserver(info: StackInfo): number {
  if (apiserverPid !== undefined && alive(apiserverPid)) return apiserverPid;
  const pid = info.pids.find((p) => {
    try {
      return readlinkSync(`/proc/${p}/exe`).endsWith("kube-apiserver");
    } catch {
      return false;
    }
  });
  if (pid === undefined) throw new Error("no kube-apiserver process");
  apiserverPid = pid;
  return pid;
}

async function waitReady(
  info: StackInfo,
  ms: number,
  gone: () => boolean = () => false,
): Promise<"ready" | "exited"> {
  const ca = readFileSync(info.caFile);
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const res = await httpsRequest(`${info.server}/readyz`, {
        ca,
        token: info.tokens.admin,
        timeoutMs: 2000,
      });
      if (res.status === 200) return "ready";
    } catch {
      // not listening yet
    }
    if (gone()) return "exited";
    if (Date.now() > deadline)
      throw new Error(`the apiserver was not ready ${ms / 1000} s after its restart`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * kill -9 of the apiserver, then the same binary started again with the same flags (etcd keeps the
 * data); resolves once it is ready. `beforeStart` runs while it is down.
 */
export async function restartApiserver(
  info: StackInfo,
  beforeStart: () => Promise<void> = async () => undefined,
): Promise<void> {
  const pid = currentApiserver(info);
  const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  const [bin, ...args] = cmdline as [string, ...string[]];
  process.kill(pid, "SIGKILL");
  while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
  await beforeStart();
  // As a kubelet would: an apiserver that exits before it is ready (a post-start hook timing out
  // on a loaded machine) is started again, up to three times.
  for (let attempt = 1; ; attempt++) {
    const logFd = openSync(path.join(info.dir, "kube-apiserver.log"), "a");
    const child = spawn(bin, args, { stdio: ["ignore", logFd, logFd], detached: true });
    closeSync(logFd);
    child.on("error", () => undefined);
    process.once("exit", () => child.kill("SIGKILL"));
    restarted = child;
    apiserverPid = child.pid;
    const outcome = await waitReady(
      info,
      90_000,
      () => child.exitCode !== null || child.signalCode !== null,
    );
    if (outcome === "ready") return;
    if (attempt >= 3) throw new Error("the apiserver exited before it was ready, three times");
  }
}

/**
 * etcd compacted to its current revision while the apiserver is down, so every watch resumed
 * after its restart starts from a compacted resourceVersion (410 Gone) and must relist.
 * Returns the revision compacted to.
 */
export async function compactAndRestart(info: StackInfo): Promise<number> {
  const pid = currentApiserver(info);
  const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  const etcd = args.find((a) => a.startsWith("--etcd-servers="))?.slice("--etcd-servers=".length);
  if (!etcd) throw new Error("the apiserver names no etcd");
  let revision = 0;
  await restartApiserver(info, async () => {
    const range = await fetch(`${etcd}/v3/kv/range`, {
      method: "POST",
      body: JSON.stringify({ key: Buffer.from("/").toString("base64"), limit: 1 }),
    });
    const head = (await range.json()) as { header?: { revision?: string } };
    revision = Number(head.header?.revision ?? 0);
    if (!revision) throw new Error("etcd reported no revision");
    const res = await fetch(`${etcd}/v3/kv/compaction`, {
      method: "POST",
      body: JSON.stringify({ revision: String(revision), physical: true }),
    });
    if (!res.ok) throw new Error(`etcd compaction: ${res.status} ${await res.text()}`);
  });
  return revision;
}

// ---- the SQLite replica's disk ------------------------------------------------------------

/** Fills the SQLite replica's filesystem to the last byte; returns the filler's removal. */
export function fillDisk(mount: string): () => void {
  const filler = path.join(mount, "filler");
  const fd = openSync(filler, "w");
  const chunk = Buffer.alloc(1 << 20);
  try {
    for (;;) writeSync(fd, chunk);
  } catch {
    // ENOSPC: full
  }
  const small = Buffer.alloc(4096);
  try {
    for (;;) writeSync(fd, small);
  } catch {
    // to the last page
  }
  closeSync(fd);
  return () => unlinkSync(filler);
}

// ---- the audit listener's certificate ---------------------------------------------------------

/** The fingerprint of the certificate a new TLS connection to `listen` is served. */
export function servedFingerprint(listen: string, caFile: string): Promise<string> {
  const [host, port] = listen.split(":") as [string, string];
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host, port: Number(port), ca: readFileSync(caFile) }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on("error", reject);
  });
}

/**
 * A new serving certificate from the run's CA written over the listener's files (key first, as a
 * Secret's update lands file by file); returns its fingerprint.
 */
export function rotateAuditCertificate(info: StackInfo): string {
  const dir = path.join(info.dir, "soak-audit-tls");
  const next = issueServingCert(
    mkdtempSync(path.join(dir, "next-")),
    {
      certFile: info.caFile,
      keyFile: info.caKeyFile,
    },
    "audit-sink",
  );
  copyFileSync(next.keyFile, path.join(dir, "tls.key"));
  copyFileSync(next.certFile, path.join(dir, "tls.crt"));
  return new X509Certificate(readFileSync(next.certFile)).fingerprint256;
}

// ---- resources of a process -----------------------------------------------------------------

/** RSS (MB) and open file descriptors of a process, undefined when it is gone. */
export function usageOf(pid: number | undefined): { rssMb: number; fds: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    const fds = readdirSync(`/proc/${pid}/fd`).length;
    return { rssMb: Number(m?.[1] ?? 0) / 1024, fds };
  } catch {
    return undefined;
  }
}

/**
 * A process's open file descriptors by kind: TCP connections by remote port (or listening),
 * Unix sockets by path (PostgreSQL's socket), files, pipes and the rest — what an fd count that
 * grew is made of.
 */
function fdKinds(pid: number | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  if (pid === undefined) return out;
  const add = (k: string) => (out[k] = (out[k] ?? 0) + 1);
  const tcp = new Map<string, string>();
  for (const f of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(f, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const c = line.trim().split(/\s+/);
      if (c.length < 10) continue;
      const remotePort = parseInt((c[2] ?? "").split(":")[1] ?? "0", 16);
      tcp.set(c[9] ?? "", c[3] === "0A" ? "tcp listening" : `tcp to :${remotePort}`);
    }
  }
  const unix = new Map<string, string>();
  try {
    for (const line of readFileSync("/proc/net/unix", "utf8").split("\n").slice(1)) {
      const c = line.trim().split(/\s+/);
      if (c.length >= 7) unix.set(c[6] ?? "", c[7] ? `unix ${path.basename(c[7])}` : "unix");
    }
  } catch {
    // none
  }
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return out;
  }
  for (const fd of fds) {
    let target = "";
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) add(tcp.get(inode) ?? unix.get(inode) ?? "socket (other)");
    else if (target.startsWith("pipe:")) add("pipe");
    else if (target.startsWith("anon_inode:")) add(target);
    else add("file");
  }
  return out;
}

/** The connections to the apiserver a replica's kube client holds, as its /api/health says. */
interface ApiserverConnections {
  /** Kept alive between requests: each closes 30 s after its last one (server/kube/client.ts). */
  idle: number;
  /** Carrying a request. */
  inUse: number;
  /** A request's own (watches). */
  own: number;
}

/** A replica's open file descriptors, its connections to the apiserver told apart. */
export interface IdleFds {
  fds: number;
  kinds: Record<string, number>;
  /** Its TCP connections to the apiserver, counted in /proc. */
  apiserver: number;
  /** What its kube client says it holds (undefined: a build that does not say). */
  held: ApiserverConnections | undefined;
}

/** Connections the kube client keeps in its pool (kept alive, or carrying a request). */
export function pooledConnections(f: IdleFds): number {
  return f.held ? f.held.idle + f.held.inUse : 0;
}

/** Connections to the apiserver the kube client does not know of (0 when it does not say). */
export function unheldConnections(f: IdleFds): number {
  return f.held ? f.apiserver - (f.held.idle + f.held.inUse + f.held.own) : 0;
}

/**
 * A replica's open file descriptors by kind with its connections to the apiserver (port
 * `apiserverPort`) as its kube client accounts for them (/api/health). Read again, for at most
 * `ms`, while the two disagree: a connection opened or closed between the reads.
 */
export async function idleFds(
  url: string,
  pid: number | undefined,
  apiserverPort: number,
  ms = 5_000,
): Promise<IdleFds | undefined> {
  const held = () =>
    fetch(`${url}/api/health`)
      .then((res) => res.json() as Promise<{ apiserverConnections?: ApiserverConnections }>)
      .then((h) => h.apiserverConnections)
      .catch(() => undefined);
  const until = Date.now() + ms;
  for (;;) {
    const first = await held();
    const fds = usageOf(pid)?.fds;
    const kinds = fdKinds(pid);
    const second = await held();
    if (fds === undefined) return undefined;
    const f: IdleFds = {
      fds,
      kinds,
      apiserver: kinds[`tcp to :${apiserverPort}`] ?? 0,
      held: second,
    };
    const same = JSON.stringify(first) === JSON.stringify(second);
    if ((same && unheldConnections(f) === 0) || Date.now() > until) return f;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Process `pid`'s established TCP connections to `port`, each as the seconds since it last sent
 * and last received data (`ss -i`'s lastsnd and lastrcv), longest idle first: one kept alive by
 * requests still being made has sent within 30 s; one the pool failed to close has not.
 */
export function connectionIdleTimes(pid: number | undefined, port: number): string[] {
  if (pid === undefined) return [];
  let text = "";
  try {
    text = execFileSync("ss", ["-tnpiH", "state", "established", "dport", `= :${port}`], {
      encoding: "utf8",
    });
  } catch {
    return [];
  }
  const out: Array<[number, number]> = [];
  // Each connection is a line naming its process, then a line of its TCP details.
  const lines = text.split("\n");
  for (let i = 0; i < lines.length - 1; i++) {
    if (!lines[i]?.includes(`pid=${pid},`)) continue;
    const info = lines[i + 1] ?? "";
    const snd = /lastsnd:(\d+)/.exec(info)?.[1];
    const rcv = /lastrcv:(\d+)/.exec(info)?.[1];
    if (snd !== undefined && rcv !== undefined) out.push([Number(snd) / 1000, Number(rcv) / 1000]);
  }
  return out
    .sort((a, b) => Math.min(b[0], b[1]) - Math.min(a[0], a[1]))
    .map(([s, r]) => `${s.toFixed(0)}/${r.toFixed(0)}`);
}
