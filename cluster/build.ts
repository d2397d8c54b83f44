/**
 * Builds Go tools from the official Go modules a module under this repository declares with
 * `tool` directives: the control plane (kube-apiserver, kube-controller-manager, etcd, declared in
 * cluster/go.mod), the older minors' kube-apiserver and kube-controller-manager
 * (cluster/minors/1.NN/go.mod, built only when asked for), helm (tools/helm/go.mod) and Dex
 * (tools/dex/go.mod). Each build is cached: a stamp of go.mod, go.sum, the tools and the link
 * flags sits beside the binaries, and nothing is rebuilt while it matches.
 *
 * `npm run cluster:build` builds the newest minor; `npm run cluster:build -- --minor 1.35` (or
 * 1.36, 1.37, or `all`) builds that minor's control plane.
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

/** The minors the local control plane can be built at: the newest and the two before it. */
export const CONTROL_PLANE_MINORS = ["1.35", "1.36", "1.37"] as const;
export type ControlPlaneMinor = (typeof CONTROL_PLANE_MINORS)[number];
/** The minor cluster/go.mod builds (and every test runs on unless told otherwise). */
export const NEWEST_MINOR: ControlPlaneMinor = "1.37";

/**
 * The latest patch of each older minor (the releases the Go module proxy serves), each built
 * from its own module in cluster/minors/<minor>/ whose staging modules are pinned to the
 * matching v0.NN.P release.
 */
const OLDER_MINORS: Record<Exclude<ControlPlaneMinor, "1.37">, string> = {
  "1.35": "v1.35.4",
  "1.36": "v1.36.3",
};

/** A minor named on a command line or in PORTCULLIS_KUBERNETES_MINOR ("1.36", "v1.36", "v1.36.3"). */
export function parseControlPlaneMinor(s: string): ControlPlaneMinor | undefined {
  const m = /^v?1\.(\d+)(?:\.\d+)?$/.exec(s.trim());
  const minor = m ? `1.${m[1]}` : "";
  return (CONTROL_PLANE_MINORS as readonly string[]).includes(minor)
    ? (minor as ControlPlaneMinor)
    : undefined;
}

/** The binaries of one minor's control plane and the release they report from /version. */
export interface ControlPlaneBinaries {
  minor: ControlPlaneMinor;
  /** The release, e.g. v1.36.3. */
  version: string;
  apiserver: string;
  controllerManager: string;
  /** etcd: the newest minor's build (v3.7), which every older apiserver here speaks to. */
  etcd: string;
}

const versionLdflags = (version: string, minor: string) =>
  [
    `-X k8s.io/component-base/version.gitVersion=${version}`,
    "-X k8s.io/component-base/version.gitMajor=1",
    `-X k8s.io/component-base/version.gitMinor=${minor.split(".")[1]}`,
  ].join(" ");

function olderMinorBuild(minor: Exclude<ControlPlaneMinor, "1.37">): GoToolBuild {
  const version = OLDER_MINORS[minor];
  const binDir = path.join(BIN_DIR, minor);
  return {
    label: `kube-apiserver and kube-controller-manager (${version})`,
    moduleDir: path.join(CLUSTER_DIR, "minors", minor),
    binDir,
    tools: [
      "k8s.io/kubernetes/cmd/kube-apiserver",
      "k8s.io/kubernetes/cmd/kube-controller-manager",
    ],
    ldflags: versionLdflags(version, minor),
    binaries: [path.join(binDir, "kube-apiserver"), path.join(binDir, "kube-controller-manager")],
    coldEstimate: "about 13 minutes",
  };
}

/** The binaries of `minor` (the newest minor's are BINARIES). */
export function controlPlaneBinaries(
  minor: ControlPlaneMinor = NEWEST_MINOR,
): ControlPlaneBinaries {
  if (minor === NEWEST_MINOR) return { minor, version: KUBERNETES_VERSION, ...BINARIES };
  const b = olderMinorBuild(minor as Exclude<ControlPlaneMinor, "1.37">);
  return {
    minor,
    version: OLDER_MINORS[minor as Exclude<ControlPlaneMinor, "1.37">],
    apiserver: b.binaries[0]!,
    controllerManager: b.binaries[1]!,
    etcd: BINARIES.etcd,
  };
}

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
  ldflags: versionLdflags(KUBERNETES_VERSION, NEWEST_MINOR),
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

/** True when `minor`'s binaries are built from its current go.mod/go.sum. */
export function isBuilt(minor: ControlPlaneMinor = NEWEST_MINOR): boolean {
  if (!isGoToolBuilt(CONTROL_PLANE)) return false;
  return minor === NEWEST_MINOR || isGoToolBuilt(olderMinorBuild(minor as "1.35" | "1.36"));
}

/**
 * Builds `minor`'s control plane (default: the newest) unless the cached build is current. An
 * older minor also needs the newest's build, for etcd. Prints progress to stderr.
 */
export async function ensureBuilt(
  log?: (line: string) => void,
  minor: ControlPlaneMinor = NEWEST_MINOR,
): Promise<void> {
  await ensureGoTools(CONTROL_PLANE, log);
  if (minor !== NEWEST_MINOR) await ensureGoTools(olderMinorBuild(minor as "1.35" | "1.36"), log);
}

/** The minors `--minor X` names (X a minor or `all`); the newest without the flag. */
export function minorsFromArgs(argv: readonly string[]): ControlPlaneMinor[] {
  const i = argv.indexOf("--minor");
  if (i < 0) return [NEWEST_MINOR];
  const v = argv[i + 1] ?? "";
  if (v === "all") return [...CONTROL_PLANE_MINORS];
  const m = parseControlPlaneMinor(v);
  if (!m)
    throw new Error(
      `--minor: expected one of ${CONTROL_PLANE_MINORS.join(", ")} or all, got "${v}"`,
    );
  return [m];
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  (async () => {
    for (const m of minorsFromArgs(process.argv.slice(2))) await ensureBuilt(undefined, m);
  })().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  });
}
