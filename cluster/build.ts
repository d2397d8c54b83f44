/**
 * Builds Go tools from the official Go modules a module under this repository declares with
 * `tool` directives: the control plane (kube-apiserver, kube-controller-manager, etcd, declared in
 * cluster/go.mod), helm (tools/helm/go.mod) and Dex (tools/dex/go.mod). Each build is cached: a stamp of go.mod, go.sum,
 * the tools and the link flags sits beside the binaries, and nothing is rebuilt while it matches.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";

/** One cached `go build` of the tools a Go module declares. */
export interface GoToolBuild {
  /** What the progress lines call it. */
  label: string;
  /** The directory holding go.mod and go.sum. */
  moduleDir: string;
  /** Where `go build -o` puts the binaries (and the stamp). */
  binDir: string;
  /** Package paths of the tools to build. */
  tools: readonly string[];
  ldflags: string;
  /** Extra environment for `go build` (e.g. CGO_ENABLED=1 for a tool that links C). */
  env?: Readonly<Record<string, string>>;
  /** Source files of a tool written here (not in a module), so an edit rebuilds it. */
  sources?: readonly string[];
  /** Every binary the build must leave behind. */
  binaries: readonly string[];
  /** A rough cold build time on 2 cores, for the first progress line. */
  coldEstimate: string;
}

export const CLUSTER_DIR = import.meta.dirname;
export const BIN_DIR = path.join(CLUSTER_DIR, "bin");
export const KUBERNETES_VERSION = "v1.37.2";

/** Paths of the built binaries (`go build -o bin/` names etcd's binary `server`). */
export const BINARIES = {
  apiserver: path.join(BIN_DIR, "kube-apiserver"),
  controllerManager: path.join(BIN_DIR, "kube-controller-manager"),
  etcd: path.join(BIN_DIR, "server"),
} as const;

const CONTROL_PLANE: GoToolBuild = {
  label: `kube-apiserver, kube-controller-manager and etcd (${KUBERNETES_VERSION})`,
  moduleDir: CLUSTER_DIR,
  binDir: BIN_DIR,
  tools: [
    "k8s.io/kubernetes/cmd/kube-apiserver",
    "k8s.io/kubernetes/cmd/kube-controller-manager",
    "go.etcd.io/etcd/server/v3",
  ],
  // Without these the apiserver reports v0.0.0-master from /version.
  ldflags: [
    `-X k8s.io/component-base/version.gitVersion=${KUBERNETES_VERSION}`,
    "-X k8s.io/component-base/version.gitMajor=1",
    "-X k8s.io/component-base/version.gitMinor=37",
  ].join(" "),
  binaries: Object.values(BINARIES),
  coldEstimate: "about 10 minutes",
};

function stamp(b: GoToolBuild): string {
  const h = createHash("sha256");
  h.update(readFileSync(path.join(b.moduleDir, "go.mod")));
  h.update(readFileSync(path.join(b.moduleDir, "go.sum")));
  h.update(b.ldflags);
  h.update(b.tools.join(","));
  // Only hashed when set, so builds without extra environment keep their existing stamps.
  if (b.env) h.update(JSON.stringify(Object.entries(b.env).sort()));
  for (const f of b.sources ?? []) h.update(readFileSync(f));
  return h.digest("hex");
}

const stampFile = (b: GoToolBuild) => path.join(b.binDir, ".stamp");

/** True when every binary exists and was built from the module's current go.mod/go.sum. */
export function isGoToolBuilt(b: GoToolBuild): boolean {
  if (!b.binaries.every((p) => existsSync(p))) return false;
  return existsSync(stampFile(b)) && readFileSync(stampFile(b), "utf8").trim() === stamp(b);
}

/** Builds the tools unless the cached build is current. Prints progress through `log`. */
export async function ensureGoTools(
  b: GoToolBuild,
  log: (line: string) => void = (l) => process.stderr.write(l + "\n"),
): Promise<void> {
  if (isGoToolBuilt(b)) return;
  mkdirSync(b.binDir, { recursive: true });
  log(
    `build: building ${b.label} from Go modules; the first build takes ${b.coldEstimate} on 2 cores, later runs reuse it`,
  );
  const started = Date.now();
  const ticker = setInterval(() => {
    log(`build: still building ${b.label}… ${Math.round((Date.now() - started) / 1000)} s`);
  }, 30_000);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        "go",
        ["build", "-o", b.binDir + "/", "-ldflags", b.ldflags, ...b.tools],
        {
          cwd: b.moduleDir,
          env: { ...process.env, ...b.env },
          stdio: ["ignore", "inherit", "inherit"],
        },
      );
      child.on("error", (e) =>
        reject(new Error(`cannot run 'go' (is Go installed and on PATH?): ${e.message}`)),
      );
      child.on("exit", (code) =>
        code === 0
          ? resolve()
          : reject(new Error(`go build of ${b.label} exited with code ${code}`)),
      );
    });
  } finally {
    clearInterval(ticker);
  }
  writeFileSync(stampFile(b), stamp(b) + "\n");
  log(`build: built ${b.label} in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** True when the control plane's binaries are built from the current cluster/go.mod. */
export function isBuilt(): boolean {
  return isGoToolBuilt(CONTROL_PLANE);
}

/** Builds the control plane unless the cached build is current. Prints progress to stderr. */
export function ensureBuilt(log?: (line: string) => void): Promise<void> {
  return ensureGoTools(CONTROL_PLANE, log);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  ensureBuilt().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  });
}
