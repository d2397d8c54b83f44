/**
 * Kubeconfig loading. Plain Node (no Next, no "server-only"): the command line shares it with the
 * dashboard server; eslint.config.mjs keeps it that way.
 */
import { existsSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { KubeApiError } from "@/lib/k8s/errors";
import type { ContextSummary } from "@/lib/api/contexts";
import { dashboardMode, SHARED_CONTEXT } from "@/lib/auth/mode";
import { dashboardError } from "@/lib/api/contract";

interface Loaded {
  kc: KubeConfig;
  key: string;
  source: string;
}

let cache: Loaded | undefined;

const SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** Where a shared-mode dashboard reaches its apiserver, and with which of its own credentials. */
export interface SharedApiserver {
  server: string;
  caFile: string | undefined;
  /** The dashboard's own service account token (re-read as it rotates). */
  tokenFile: string;
}

/** True when PORTCULLIS_MODE=shared (throws on a value that is neither mode). */
export function isSharedMode(env: NodeJS.ProcessEnv = process.env): boolean {
  return dashboardMode(env.PORTCULLIS_MODE) === "shared";
}

/**
 * The apiserver of a shared-mode dashboard: PORTCULLIS_APISERVER_URL and
 * PORTCULLIS_APISERVER_CA_FILE, else the in-cluster service's address and the service account's
 * CA; its own token from PORTCULLIS_SERVICE_ACCOUNT_TOKEN_FILE, else the service account's.
 */
export function sharedApiserver(env: NodeJS.ProcessEnv = process.env): SharedApiserver {
  const host = env.KUBERNETES_SERVICE_HOST;
  const inCluster = host
    ? `https://${host.includes(":") ? `[${host}]` : host}:${env.KUBERNETES_SERVICE_PORT ?? "443"}`
    : undefined;
  const server = env.PORTCULLIS_APISERVER_URL || inCluster;
  if (!server) {
    throw new KubeApiError(
      dashboardError({
        status: 503,
        reason: "NoApiserver",
        message:
          "shared mode needs the apiserver's address: set PORTCULLIS_APISERVER_URL (and PORTCULLIS_APISERVER_CA_FILE), or run in the cluster",
      }),
    );
  }
  const defaultCa = path.join(SA_DIR, "ca.crt");
  return {
    server,
    caFile: env.PORTCULLIS_APISERVER_CA_FILE || (existsSync(defaultCa) ? defaultCa : undefined),
    tokenFile: env.PORTCULLIS_SERVICE_ACCOUNT_TOKEN_FILE || path.join(SA_DIR, "token"),
  };
}

/**
 * Shared mode's kubeconfig: one context, SHARED_CONTEXT, acting as the dashboard's own service
 * account. Only the audit sink, the metrics scrape and the shared watch cache use it; users' calls
 * go through their sessions (server/kube/identity.ts).
 */
function sharedKubeConfig(): KubeConfig {
  const a = sharedApiserver();
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: SHARED_CONTEXT, server: a.server, caFile: a.caFile, skipTLSVerify: false }],
    users: [
      {
        name: "portcullis-dashboard",
        authProvider: { name: "tokenFile", config: { tokenFile: a.tokenFile } },
      },
    ],
    contexts: [{ name: SHARED_CONTEXT, cluster: SHARED_CONTEXT, user: "portcullis-dashboard" }],
    currentContext: SHARED_CONTEXT,
  });
  return kc;
}

/** The kubeconfig files kubectl would read: KUBECONFIG's list, else ~/.kube/config if it exists. */
export function defaultKubeconfigPaths(env: string | undefined = process.env.KUBECONFIG): string[] {
  if (env) return env.split(path.delimiter).filter(Boolean);
  const home = path.join(os.homedir(), ".kube", "config");
  return existsSync(home) ? [home] : [];
}

function cacheKey(paths: readonly string[]): string {
  return paths
    .map((p) => (existsSync(p) ? `${p}@${statSync(p).mtimeMs}` : `${p}@missing`))
    .join("|");
}

/**
 * Loads the kubeconfig from `paths` (merged in order, as kubectl merges KUBECONFIG; missing files
 * are passed over), else the in-cluster service account when `paths` is empty. The default is
 * KUBECONFIG, else ~/.kube/config. Reloaded when a file changes. Throws a KubeApiError when none
 * is found.
 */
export function loadKubeConfig(paths: readonly string[] = defaultKubeconfigPaths()): KubeConfig {
  if (isSharedMode()) {
    if (cache?.key !== "shared")
      cache = { kc: sharedKubeConfig(), key: "shared", source: "shared" };
    return cache.kc;
  }
  const key = paths.length > 0 ? cacheKey(paths) : "in-cluster";
  if (cache && cache.key === key) return cache.kc;
  const kc = new KubeConfig();
  let source: string;
  if (paths.length > 0) {
    const missing = paths.filter((p) => !existsSync(p));
    if (missing.length === paths.length) {
      throw new KubeApiError(
        dashboardError({
          status: 503,
          reason: "NoKubeconfig",
          message: `no kubeconfig at ${missing.join(", ")}: start the local cluster with \`npm run cluster\` or point KUBECONFIG at your cluster's kubeconfig`,
        }),
      );
    }
    paths
      .filter((f) => existsSync(f))
      .forEach((f, i) => {
        if (i === 0) return kc.loadFromFile(f);
        const more = new KubeConfig();
        more.loadFromFile(f);
        // The first file to name a current context wins, as with kubectl.
        kc.mergeConfig(more, kc.getCurrentContext() !== "");
      });
    source = paths.join(path.delimiter);
  } else if (process.env.KUBERNETES_SERVICE_HOST) {
    kc.loadFromCluster();
    source = "in-cluster service account";
  } else {
    throw new KubeApiError(
      dashboardError({
        status: 503,
        reason: "NoKubeconfig",
        message:
          "no kubeconfig found: set KUBECONFIG, create ~/.kube/config, or run inside a cluster with a service account",
      }),
    );
  }
  cache = { kc, key, source };
  return kc;
}

/** Every context of the loaded kubeconfig. */
export function listContexts(): ContextSummary[] {
  const kc = loadKubeConfig();
  return kc.getContexts().map((c) => ({
    name: c.name,
    cluster: c.cluster,
    server: kc.getCluster(c.cluster)?.server ?? "",
    user: c.user,
    namespace: c.namespace,
  }));
}

/**
 * The context a request uses: the one it asked for when it exists, else PORTCULLIS_DEFAULT_CONTEXT,
 * else the kubeconfig's current context.
 */
export function resolveContext(requested: string | undefined): string {
  const kc = loadKubeConfig();
  const names = new Set(kc.getContexts().map((c) => c.name));
  if (requested && names.has(requested)) return requested;
  const preferred = process.env.PORTCULLIS_DEFAULT_CONTEXT;
  if (preferred && names.has(preferred)) return preferred;
  return kc.getCurrentContext();
}

/**
 * A KubeConfig whose current context is `context`, leaving the shared one untouched; `paths` as
 * for loadKubeConfig.
 */
export function kubeConfigFor(context: string, paths?: readonly string[]): KubeConfig {
  const base = loadKubeConfig(paths);
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: base.getClusters(),
    users: base.getUsers(),
    contexts: base.getContexts(),
    currentContext: context,
  });
  return kc;
}
