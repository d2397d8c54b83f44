/**
 * What `npm test` needs from the machine, checked before anything is built: each prerequisite
 * is probed through a small interface, so the check itself is tested without the real machine.
 * `.ci/run` installs the same Debian packages.
 */
import { accessSync, constants, existsSync, readdirSync } from "node:fs";
import path from "node:path";

/** The lowest Node.js the project supports (package.json `engines`). */
export const MIN_NODE = [20, 19] as const;

/** What the check may ask of the machine. */
export interface Probe {
  /** `process.versions.node`. */
  nodeVersion: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Whether an executable of this name is on PATH. */
  onPath(command: string): boolean;
  /** Whether the path exists. */
  exists(file: string): boolean;
  /** The entries of a directory; empty when it cannot be read. */
  list(dir: string): string[];
}

export interface Missing {
  /** How the one line names it. */
  name: string;
  /** The Debian package that provides it; absent for what apt does not provide in the version needed. */
  apt?: string;
}

/** The PostgreSQL server binaries (Debian's `postgresql`), found as test/postgres.ts finds them. */
export const POSTGRES_ROOT = "/usr/lib/postgresql";

/** The clock-faking preload the soak runs one replica under (Debian's `libfaketime`). */
export const LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1";

/**
 * Whether `npm test` closes with the 5-minute soak: always, CI included, unless PORTCULLIS_SOAK=0
 * leaves it out (a quicker local run; CI never sets it).
 */
export function soakRuns(env: Probe["env"]): boolean {
  return env.PORTCULLIS_SOAK !== "0";
}

/** Chromium's flags for the tests and benchmarks: no sandbox or GPU here, and nothing phoning home. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
] as const;

/** Where the end-to-end tests, the screenshots and the benchmarks find Chromium. */
export function chromiumPath(env: Probe["env"]): string {
  return env.CHROMIUM_PATH ?? "/usr/bin/chromium";
}

function nodeIsRecentEnough(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
}

/**
 * Everything missing, in a fixed order. `browser` is false for `--only oracle`, which starts no
 * browser and no OIDC issuer (Dex, whose build links C: gcc and libc6-dev); `soak` is true when
 * the run closes with the soak (soakRuns), which needs libfaketime.
 */
export function missingPrerequisites(
  probe: Probe,
  opts: { browser: boolean; soak?: boolean },
): Missing[] {
  const missing: Missing[] = [];
  if (!nodeIsRecentEnough(probe.nodeVersion)) {
    missing.push({ name: `Node.js ≥ ${MIN_NODE.join(".")} (this is ${probe.nodeVersion})` });
  }
  if (!probe.onPath("go")) missing.push({ name: "go" });
  if (opts.browser && !probe.exists(chromiumPath(probe.env))) {
    missing.push({ name: "chromium", apt: "chromium" });
  }
  const hasInitdb = probe
    .list(POSTGRES_ROOT)
    .some((v) => probe.exists(path.join(POSTGRES_ROOT, v, "bin", "initdb")));
  if (!hasInitdb) missing.push({ name: "postgresql", apt: "postgresql" });
  if (opts.browser && !probe.onPath("gcc")) missing.push({ name: "gcc", apt: "gcc" });
  if (opts.browser && !probe.exists("/usr/include/stdio.h")) {
    missing.push({ name: "libc6-dev", apt: "libc6-dev" });
  }
  if (!probe.onPath("openssl")) missing.push({ name: "openssl", apt: "openssl" });
  if (opts.soak && !probe.exists(LIBFAKETIME)) {
    missing.push({ name: "libfaketime", apt: "libfaketime" });
  }
  return missing;
}

/**
 * The one line naming everything missing and how to install it, or null when nothing is:
 * `missing prerequisites: chromium, postgresql — install with: apt-get install -y chromium postgresql`.
 */
export function prerequisitesLine(missing: Missing[]): string | null {
  if (missing.length === 0) return null;
  const apt = missing.flatMap((m) => (m.apt ? [m.apt] : []));
  const notApt = missing.filter((m) => !m.apt);
  const how: string[] = [];
  if (apt.length > 0) how.push(`install with: apt-get install -y ${apt.join(" ")}`);
  if (notApt.some((m) => m.name === "go")) {
    how.push("Go ≥ 1.26 from its release archive on PATH (Debian's golang-go is older)");
  }
  if (notApt.some((m) => m.name.startsWith("Node.js"))) {
    how.push(`Node.js ≥ ${MIN_NODE.join(".")} from its release archive on PATH`);
  }
  return `missing prerequisites: ${missing.map((m) => m.name).join(", ")} — ${how.join("; ")}`;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The machine this process runs on. */
export function machineProbe(env: NodeJS.ProcessEnv = process.env): Probe {
  return {
    nodeVersion: process.versions.node,
    env,
    onPath: (command) =>
      (env.PATH ?? "")
        .split(path.delimiter)
        .some((dir) => dir !== "" && isExecutable(path.join(dir, command))),
    exists: (file) => existsSync(file),
    list: (dir) => {
      try {
        return readdirSync(dir);
      } catch {
        return [];
      }
    },
  };
}
