/**
 * Builds the control plane (kube-apiserver, kube-controller-manager, etcd) from the official Go
 * modules declared as Go tools in cluster/go.mod. The build is cached: a stamp of go.mod, go.sum
 * and the link flags sits beside the binaries, and nothing is rebuilt while it matches.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";

export const CLUSTER_DIR = import.meta.dirname;
export const BIN_DIR = path.join(CLUSTER_DIR, "bin");
export const KUBERNETES_VERSION = "v1.37.2";

const TOOLS = [
  "k8s.io/kubernetes/cmd/kube-apiserver",
  "k8s.io/kubernetes/cmd/kube-controller-manager",
  "go.etcd.io/etcd/server/v3",
];

// Without these the apiserver reports v0.0.0-master from /version.
const LDFLAGS = [
  `-X k8s.io/component-base/version.gitVersion=${KUBERNETES_VERSION}`,
  "-X k8s.io/component-base/version.gitMajor=1",
  "-X k8s.io/component-base/version.gitMinor=37",
].join(" ");

/** Paths of the built binaries (`go build -o bin/` names etcd's binary `server`). */
export const BINARIES = {
  apiserver: path.join(BIN_DIR, "kube-apiserver"),
  controllerManager: path.join(BIN_DIR, "kube-controller-manager"),
  etcd: path.join(BIN_DIR, "server"),
} as const;

function stamp(): string {
  const h = createHash("sha256");
  h.update(readFileSync(path.join(CLUSTER_DIR, "go.mod")));
  h.update(readFileSync(path.join(CLUSTER_DIR, "go.sum")));
  h.update(LDFLAGS);
  h.update(TOOLS.join(","));
  return h.digest("hex");
}

const STAMP_FILE = path.join(BIN_DIR, ".stamp");

/** True when every binary exists and was built from the current go.mod/go.sum. */
export function isBuilt(): boolean {
  if (!Object.values(BINARIES).every((p) => existsSync(p))) return false;
  return existsSync(STAMP_FILE) && readFileSync(STAMP_FILE, "utf8").trim() === stamp();
}

/** Builds the binaries unless the cached build is current. Prints progress to stderr. */
export async function ensureBuilt(
  log: (line: string) => void = (l) => process.stderr.write(l + "\n"),
): Promise<void> {
  if (isBuilt()) return;
  mkdirSync(BIN_DIR, { recursive: true });
  log(
    `cluster: building kube-apiserver, kube-controller-manager and etcd (${KUBERNETES_VERSION}) from Go modules;` +
      " the first build takes about 10 minutes on 2 cores, later starts reuse it",
  );
  const started = Date.now();
  const ticker = setInterval(() => {
    log(`cluster: still building… ${Math.round((Date.now() - started) / 1000)} s`);
  }, 30_000);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn("go", ["build", "-o", BIN_DIR + "/", "-ldflags", LDFLAGS, ...TOOLS], {
        cwd: CLUSTER_DIR,
        stdio: ["ignore", "inherit", "inherit"],
      });
      child.on("error", (e) =>
        reject(new Error(`cannot run 'go' (is Go installed and on PATH?): ${e.message}`)),
      );
      child.on("exit", (code) =>
        code === 0 ? resolve() : reject(new Error(`go build exited with code ${code}`)),
      );
    });
  } finally {
    clearInterval(ticker);
  }
  writeFileSync(STAMP_FILE, stamp() + "\n");
  log(`cluster: built in ${Math.round((Date.now() - started) / 1000)} s`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  ensureBuilt().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  });
}
