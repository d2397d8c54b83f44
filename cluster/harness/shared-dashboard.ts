/**
 * A shared-mode dashboard (PORTCULLIS_MODE=shared) on a running stack's control plane: a second
 * dashboard process beside the stack's local-mode one, started the way `npm start` starts it.
 * It reaches the apiserver with PORTCULLIS_APISERVER_URL/_CA_FILE and holds a real service
 * account token of its own (a TokenRequest), bound to a test role that reads what the shared
 * watch cache and the metrics scrape need and may impersonate (for PORTCULLIS_IMPERSONATE=1).
 * Its stdout and stderr go to `logFile`, so tests can read what it logged.
 */
import { randomBytes } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { httpsRequest } from "../https-json";
import { freePorts } from "../ports";
import { spawnDashboard, waitForHttp, type StackInfo } from "./stack";

export const SHARED_NAMESPACE = "portcullis-shared";

export interface SharedDashboard {
  url: string;
  logFile: string;
  /** Its PORTCULLIS_DATA_DIR (decisions.sqlite holds decisions and sessions). */
  dataDir: string;
  /** The dashboard's own service account token and its session secret (must never be logged). */
  secrets: string[];
  /** A real user the apiserver knows, with no RBAC grant at all (a service account). */
  nobodyToken: string;
  /** The server process's id (changes with a restart). */
  readonly pid: number | undefined;
  stop(): Promise<void>;
  /** Sends a signal (SIGKILL for a crash) and resolves once the process has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port with the same settings; resolves once it answers. */
  restart(): Promise<void>;
}

const READ = ["get", "list", "watch"];

/** A write as the stack's admin; "already exists" counts as done, anything else refused throws. */
export async function admin(
  stack: StackInfo,
  method: string,
  p: string,
  body?: unknown,
): Promise<{ status: number; body: string }> {
  const res = await httpsRequest(`${stack.server}${p}`, {
    method,
    body,
    ca: readFileSync(stack.caFile),
    token: stack.tokens.admin,
  });
  if (res.status >= 300 && res.status !== 409) {
    throw new Error(`${method} ${p}: ${res.status} ${res.body.slice(0, 300)}`);
  }
  return res;
}

async function serviceAccountToken(stack: StackInfo, name: string): Promise<string> {
  await admin(stack, "POST", `/api/v1/namespaces/${SHARED_NAMESPACE}/serviceaccounts`, {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name },
  });
  const res = await admin(
    stack,
    "POST",
    `/api/v1/namespaces/${SHARED_NAMESPACE}/serviceaccounts/${name}/token`,
    {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: { expirationSeconds: 3600 },
    },
  );
  return (JSON.parse(res.body) as { status: { token: string } }).status.token;
}

/** Sets up the service accounts and RBAC (idempotent) and starts the shared-mode dashboard. */
export async function startSharedDashboard(
  stack: StackInfo,
  opts: {
    impersonate?: boolean;
    /** A PostgreSQL database (DATABASE_URL) instead of SQLite in its own data dir. */
    databaseUrl?: string;
    /** The session secret; replicas sharing one database share it. Random when absent. */
    sessionSecret?: string;
    /** The port to listen on (picked in advance when an OIDC issuer must know the URL). */
    port?: number;
    /** More environment, e.g. the PORTCULLIS_OIDC_* of an issuer (cluster/harness/oidc-issuer.ts). */
    env?: Record<string, string>;
    /**
     * What its service account may impersonate (default users, groups and serviceaccounts). Any
     * other list gets a service account and role of its own.
     */
    impersonates?: readonly ("users" | "groups" | "serviceaccounts")[];
    /** Its PORTCULLIS_DATA_DIR (default: a new directory in the stack's). */
    dataDir?: string;
  } = {},
): Promise<SharedDashboard> {
  await admin(stack, "POST", "/api/v1/namespaces", {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: SHARED_NAMESPACE },
  });
  const impersonates = opts.impersonates ?? ["users", "groups", "serviceaccounts"];
  const own = opts.impersonates ? `-${impersonates.join("-") || "none"}` : "";
  const account = `dashboard${own}`;
  const role = `portcullis-shared-test-dashboard${own}`;
  await admin(stack, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: role },
    rules: [
      {
        apiGroups: ["admissionregistration.k8s.io", "admission.portcullis.dev"],
        resources: ["*"],
        verbs: READ,
      },
      { apiGroups: [""], resources: ["namespaces", "services", "endpoints", "pods"], verbs: READ },
      { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: READ },
      {
        apiGroups: ["apiextensions.k8s.io"],
        resources: ["customresourcedefinitions"],
        verbs: READ,
      },
      { nonResourceURLs: ["/metrics"], verbs: ["get"] },
      ...(impersonates.length > 0
        ? [{ apiGroups: [""], resources: [...impersonates], verbs: ["impersonate"] }]
        : []),
    ],
  });
  await admin(stack, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: role },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
    subjects: [{ kind: "ServiceAccount", name: account, namespace: SHARED_NAMESPACE }],
  });
  const saToken = await serviceAccountToken(stack, account);
  const nobodyToken = await serviceAccountToken(stack, "nobody");

  const dir = mkdtempSync(path.join(stack.dir, "shared-"));
  const tokenFile = path.join(dir, "sa-token");
  writeFileSync(tokenFile, saToken, { mode: 0o600 });
  const secret = opts.sessionSecret ?? randomBytes(32).toString("hex");
  const secretFile = path.join(dir, "session-secret");
  writeFileSync(secretFile, secret, { mode: 0o600 });
  const logFile = path.join(dir, "dashboard.log");
  const dataDir = opts.dataDir ?? path.join(dir, "data");

  const env: NodeJS.ProcessEnv = { ...process.env };
  // Nothing of the local mode's: no kubeconfig, no default context, no trace receiver.
  for (const k of [
    "KUBECONFIG",
    "PORTCULLIS_DEFAULT_CONTEXT",
    "PORTCULLIS_OTLP_LISTEN",
    "PORTCULLIS_AUDIT_LOG",
    "DATABASE_URL",
  ]) {
    delete env[k];
  }
  Object.assign(env, {
    PORTCULLIS_MODE: "shared",
    PORTCULLIS_APISERVER_URL: stack.server,
    PORTCULLIS_APISERVER_CA_FILE: stack.caFile,
    PORTCULLIS_SERVICE_ACCOUNT_TOKEN_FILE: tokenFile,
    PORTCULLIS_SESSION_SECRET_FILE: secretFile,
    PORTCULLIS_DATA_DIR: dataDir,
    PORTCULLIS_AUDIT_TOKEN: stack.auditToken,
    PORTCULLIS_IMPERSONATE: opts.impersonate ? "1" : "0",
    // As the local test dashboards have it: shared mode must not serve the test hooks anyway.
    PORTCULLIS_TEST_HOOKS: "1",
    NEXT_TELEMETRY_DISABLED: "1",
  });
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
  Object.assign(env, opts.env);
  const port = opts.port ?? ((await freePorts(1)) as [number])[0];
  const url = `http://127.0.0.1:${port}`;
  const spawnAndWait = async () => {
    const out = openSync(logFile, "a");
    const started = spawnDashboard(env, port, ["ignore", out, out]);
    closeSync(out);
    try {
      await waitForHttp(`${url}/api/health`, started, 60_000);
    } catch (e) {
      started.kill("SIGKILL");
      throw e;
    }
    return started;
  };
  let child = await spawnAndWait();
  const kill = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill(signal);
    });
  return {
    url,
    logFile,
    dataDir,
    secrets: [saToken, secret],
    nobodyToken,
    get pid() {
      return child.pid;
    },
    stop: () => kill("SIGTERM"),
    kill,
    restart: async () => {
      await kill("SIGTERM");
      child = await spawnAndWait();
    },
  };
}
