/**
 * A test stack: the real control plane plus the dashboard (`next start` on a production build),
 * wired together so the apiserver's audit webhook reaches the dashboard's /api/audit.
 * Test runners start one per run, or reuse a running one named by PORTCULLIS_STACK.
 */
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { createHash, type Hash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  ensureBuilt,
  NEWEST_MINOR,
  parseControlPlaneMinor,
  type ControlPlaneMinor,
} from "../build";
import { startControlPlane, type ControlPlaneInfo } from "../control-plane";
import { freePorts } from "../ports";
import { installLegacyCrds, LEGACY_ADMISSION_GROUP } from "../legacy-crds";
import { installEngineCrds } from "../engines";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
/** Where runs keep their state; PORTCULLIS_STATE_DIR moves it (tests use a private one). */
export const STATE_DIR = process.env.PORTCULLIS_STATE_DIR ?? path.join(REPO_ROOT, ".portcullis");

export interface StackInfo extends ControlPlaneInfo {
  /** Set when the stack runs a dashboard server. */
  dashboardPid?: number;
}

export interface Stack {
  info: StackInfo;
  /** Path of the JSON file describing the stack; pass it to other runners as PORTCULLIS_STACK. */
  file: string;
  stop(): Promise<void>;
}

/** Reads the stack a runner shares through PORTCULLIS_STACK. Fails loudly when there is none. */
export function readStack(): StackInfo {
  const file = process.env.PORTCULLIS_STACK;
  if (!file) {
    throw new Error(
      "PORTCULLIS_STACK is not set: start tests through the test runners, which start the control plane",
    );
  }
  return JSON.parse(readFileSync(file, "utf8")) as StackInfo;
}

/** Environment for a dashboard process talking to the stack's control plane. */
export function dashboardEnv(info: ControlPlaneInfo): NodeJS.ProcessEnv {
  return {
    ...process.env,
    KUBECONFIG: info.kubeconfig,
    PORTCULLIS_AUDIT_TOKEN: info.auditToken,
    // Each stack's dashboards keep decisions in the run's own directory.
    PORTCULLIS_DATA_DIR: path.join(info.dir, "data"),
    PORTCULLIS_DEFAULT_CONTEXT: info.contexts.admin,
    PORTCULLIS_ADMISSION_CONFIG: info.admissionConfigFile,
    // The test stack serves the historical admission kinds (see cluster/legacy-crds.ts).
    PORTCULLIS_LEGACY_ADMISSION_GROUP: LEGACY_ADMISSION_GROUP,
    // Tests wait on the server's state through /api/test-hooks (server/testing/hooks.ts; never
    // served in shared mode).
    PORTCULLIS_TEST_HOOKS: "1",
    // The apiserver's static manifest directories, each named with its plugin.
    ...(info.admissionManifests
      ? {
          PORTCULLIS_ADMISSION_MANIFESTS: Object.entries(info.admissionManifests)
            .map(([plugin, dir]) => `${plugin}=${dir}`)
            .join(path.delimiter),
        }
      : {}),
    // The apiserver exports its traces here; the dashboard's receiver listens on it.
    ...(info.otlpListen ? { PORTCULLIS_OTLP_LISTEN: info.otlpListen } : {}),
    // The apiserver presents a client certificate to the dashboard's own audit listener.
    ...(info.auditTls
      ? {
          PORTCULLIS_AUDIT_TLS_LISTEN: info.auditTls.listen,
          PORTCULLIS_AUDIT_TLS_CERT_FILE: info.auditTls.certFile,
          PORTCULLIS_AUDIT_TLS_KEY_FILE: info.auditTls.keyFile,
          PORTCULLIS_AUDIT_CLIENT_CA_FILE: info.auditTls.clientCaFile,
          PORTCULLIS_AUDIT_CLIENT_NAMES: info.auditTls.clientName,
        }
      : {}),
    NEXT_TELEMETRY_DISABLED: "1",
  };
}

/** Waits until `url` answers 2xx, failing when `child` exits first or the time runs out. */
export async function waitForHttp(
  url: string,
  child: ChildProcess,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`dashboard exited with code ${child.exitCode}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`dashboard did not answer ${url} within ${timeoutMs / 1000} s`);
}

/**
 * Starts the dashboard's production build the way `npm start` does (scripts/start.mjs: loopback
 * only, the port handed to the request policy).
 */
export function spawnDashboard(
  env: NodeJS.ProcessEnv,
  port: number,
  stdio: StdioOptions = "ignore",
): ChildProcess {
  return spawn(process.execPath, [path.join(REPO_ROOT, "scripts/start.mjs")], {
    cwd: REPO_ROOT,
    env: { ...env, PORT: String(port), PORTCULLIS_HOST: "127.0.0.1" },
    stdio,
    // Its own process group: a terminal's Ctrl-C reaches the parent, which stops it in order.
    detached: true,
  });
}

/** What the production build is made from (besides node_modules, covered by the lockfile). */
const BUILD_INPUTS = [
  "app",
  "components",
  "lib",
  "server",
  "public",
  "instrumentation.ts",
  "proxy.ts",
  "next.config.ts",
  "tsconfig.json",
  "package.json",
  "package-lock.json",
];

/** Where a build records the fingerprint of the sources it was made from. */
const BUILD_STAMP = path.join(".next", "portcullis-inputs.sha256");

/** Feeds every file under `p` (test files skipped), by path and content, to `hash`. */
function hashInputs(root: string, p: string, hash: Hash): void {
  const full = path.join(root, p);
  let st;
  try {
    st = statSync(full);
  } catch {
    return;
  }
  if (st.isDirectory()) {
    for (const e of readdirSync(full).sort()) hashInputs(root, path.join(p, e), hash);
  } else if (!/\.test\.tsx?$/.test(p)) {
    const content = readFileSync(full);
    hash.update(`${p}\0${content.length}\0`).update(content);
  }
}

/** A fingerprint of what the production build is made from: every input's path and content. */
export function buildInputsFingerprint(root: string = REPO_ROOT): string {
  const hash = createHash("sha256");
  for (const p of BUILD_INPUTS) hashInputs(root, p, hash);
  return hash.digest("hex");
}

/** Records that the build in `.next` was made from sources with this fingerprint. */
export function markBuildCurrent(fingerprint: string, root: string = REPO_ROOT): void {
  writeFileSync(path.join(root, BUILD_STAMP), fingerprint + "\n");
}

/**
 * Whether `.next` holds a production build made from the sources as they are now (by content, not
 * modification times, which a copy or an archive can carry back in time, and which a deleted file
 * leaves none of): a build left from an older checkout would otherwise be served (and benchmarked)
 * as if it were the current code. A build not made by buildDashboard has no record: not current.
 */
export function dashboardBuildIsCurrent(root: string = REPO_ROOT): boolean {
  let stamp: string;
  try {
    statSync(path.join(root, ".next", "BUILD_ID"));
    stamp = readFileSync(path.join(root, BUILD_STAMP), "utf8").trim();
  } catch {
    return false;
  }
  return stamp === buildInputsFingerprint(root);
}

/** Runs `next build` (the stack serves the production build, as users get it). */
export async function buildDashboard(log: (l: string) => void): Promise<void> {
  log("stack: building the dashboard (next build)…");
  // Taken before the build: a source changed while it runs leaves the build not current.
  const fingerprint = buildInputsFingerprint();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(REPO_ROOT, "node_modules/next/dist/bin/next"), "build"],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
        // Build chatter goes to stderr: stdout of the stack tools carries only machine-readable lines.
        stdio: ["ignore", 2, 2],
      },
    );
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`next build exited with code ${code}`)),
    );
  });
  markBuildCurrent(fingerprint);
}

/**
 * The minor a stack runs: PORTCULLIS_KUBERNETES_MINOR (1.35, 1.36 or 1.37; what
 * `npm run test:versions` sets), else the newest.
 */
export function stackMinor(env: NodeJS.ProcessEnv = process.env): ControlPlaneMinor {
  const v = env.PORTCULLIS_KUBERNETES_MINOR;
  if (v === undefined || v === "") return NEWEST_MINOR;
  const m = parseControlPlaneMinor(v);
  if (!m)
    throw new Error(`PORTCULLIS_KUBERNETES_MINOR: not a minor this repository builds: "${v}"`);
  return m;
}

/**
 * Starts the control plane (at `stackMinor()`) and, unless `dashboard` is false, the dashboard
 * from the production build in .next (built first when missing).
 */
export async function startStack(
  opts: {
    dashboard?: boolean;
    log?: (l: string) => void;
    /** How the apiserver's audit batches reach the dashboard (StartOptions.auditSink). */
    auditSink?: "relay" | "client-certificate";
  } = {},
): Promise<Stack> {
  const log = opts.log ?? ((l: string) => process.stderr.write(l + "\n"));
  const minor = stackMinor();
  await ensureBuilt(log, minor);
  const [dashboardPort] = (await freePorts(1)) as [number];
  const dashboardUrl = `http://127.0.0.1:${dashboardPort}`;
  mkdirSync(STATE_DIR, { recursive: true });
  const cp = await startControlPlane({
    dashboardUrl,
    baseDir: path.join(STATE_DIR, "runs"),
    log,
    minor,
    ...(opts.auditSink ? { auditSink: opts.auditSink } : {}),
  });
  try {
    const admin = { server: cp.server, ca: readFileSync(cp.caFile), token: cp.tokens.admin };
    await installLegacyCrds(admin);
    // Gatekeeper's CRDs (no engine objects: tests seed those they need). Kyverno's and
    // Kubewarden's (the demo installs them) would add about 20 s to every start: Kyverno's
    // ClusterPolicy and Policy schemas are 0.7 MB each.
    await installEngineCrds({ ...admin, engines: ["gatekeeper"] });
  } catch (e) {
    await cp.stop();
    throw e;
  }
  let dashboard: ChildProcess | undefined;
  const file = path.join(cp.dir, "stack.json");
  const stop = async () => {
    // What the apiserver sends the dashboard is not retried past the stop (ControlPlane.drain).
    cp.drain();
    if (dashboard && dashboard.exitCode === null) {
      dashboard.kill("SIGTERM");
      await new Promise((r) => dashboard?.once("exit", r));
    }
    await cp.stop();
  };
  try {
    if (opts.dashboard !== false) {
      if (!dashboardBuildIsCurrent()) await buildDashboard(log);
      dashboard = spawnDashboard(dashboardEnv(cp), dashboardPort, ["ignore", "ignore", "inherit"]);
      await waitForHttp(`${dashboardUrl}/api/health`, dashboard, 60_000);
      log(`stack: dashboard on ${dashboardUrl}`);
    }
    // No dashboard of this stack takes audit batches or spans: each would be retried for nothing.
    if (!dashboard) cp.drain();
    const { stop: _stop, drain: _drain, ...info } = cp;
    const stackInfo: StackInfo = { ...info, dashboardPid: dashboard?.pid };
    writeFileSync(file, JSON.stringify(stackInfo, null, 2), { mode: 0o600 });
    return {
      info: stackInfo,
      file,
      stop: async () => {
        await stop();
        rmSync(file, { force: true });
      },
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * The apiserver's audit log with its rotated backups (`<name>-<timestamp>.log`, as it renames
 * them), oldest first: the live file last.
 */
export function auditLogFiles(stack: Pick<StackInfo, "auditLogPath">): string[] {
  const dir = path.dirname(stack.auditLogPath);
  const base = path.basename(stack.auditLogPath, ".log");
  const rotated = readdirSync(dir)
    .filter((f) => f.startsWith(`${base}-`) && f.endsWith(".log"))
    .sort()
    .map((f) => path.join(dir, f));
  return [...rotated, stack.auditLogPath];
}

/**
 * The audit log's events of one request, by its Audit-Id, once its last stage (ResponseComplete)
 * is written, or what there is after `waitMs`.
 */
export async function auditEventsOf(
  stack: Pick<StackInfo, "auditLogPath">,
  auditID: string,
  waitMs = 15_000,
): Promise<Array<Record<string, unknown>>> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const events = auditLogFiles(stack)
      .flatMap((f) => readFileSync(f, "utf8").split("\n"))
      .filter((l) => l.includes(auditID))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((e) => e.auditID === auditID);
    if (events.some((e) => e.stage === "ResponseComplete") || Date.now() > deadline) return events;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The ResponseComplete event of one request (by its Audit-Id) once the apiserver wrote it. */
export async function completedAuditEvent(
  stack: Pick<StackInfo, "auditLogPath">,
  auditID: string,
): Promise<Record<string, unknown> | undefined> {
  return (await auditEventsOf(stack, auditID)).find((e) => e.stage === "ResponseComplete");
}

/** What tests read of an apiserver audit event. */
export interface AuditedWrite {
  verb?: string;
  stage?: string;
  objectRef?: { resource?: string; name?: string };
  user?: { username?: string };
  impersonatedUser?: { username?: string; groups?: string[] };
  responseStatus?: { code?: number };
}

/**
 * The apiserver's completed `update` events for objects named `name`, waiting up to 20 s until
 * at least `count` are flushed to the audit log.
 */
export async function auditedUpdates(
  stack: Pick<StackInfo, "auditLogPath">,
  name: string,
  count: number,
): Promise<AuditedWrite[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const lines = auditLogFiles(stack)
      .flatMap((f) => readFileSync(f, "utf8").split("\n"))
      .filter((l) => l.includes(name))
      .map((l) => JSON.parse(l) as AuditedWrite)
      .filter((e) => e.verb === "update" && e.stage === "ResponseComplete");
    if (lines.length >= count || Date.now() > deadline) return lines;
    await new Promise((r) => setTimeout(r, 250));
  }
}
