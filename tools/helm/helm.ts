/**
 * The real helm, declared as a Go tool in tools/helm/go.mod (a module of its own, so its
 * Kubernetes client libraries need not follow the control plane's) and built on first use by the
 * same cached build as the control plane (cluster/build.ts).
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ensureGoTools, type GoToolBuild } from "../../cluster/build";

const HELM_DIR = import.meta.dirname;
const HELM_BIN = path.join(HELM_DIR, "bin", "helm");

/** The helm version go.mod requires (so `helm version` says what was built). */
function helmVersion(): string {
  const m = /^\s*helm\.sh\/helm\/v4 (v\S+)/m.exec(
    readFileSync(path.join(HELM_DIR, "go.mod"), "utf8"),
  );
  if (!m?.[1]) throw new Error("tools/helm/go.mod does not require helm.sh/helm/v4");
  return m[1];
}

const HELM: GoToolBuild = {
  label: "helm",
  moduleDir: HELM_DIR,
  binDir: path.join(HELM_DIR, "bin"),
  tools: ["helm.sh/helm/v4/cmd/helm"],
  ldflags: `-X helm.sh/helm/v4/internal/version.version=${helmVersion()}`,
  binaries: [HELM_BIN],
  coldEstimate: "about 4 minutes (380 CPU-seconds)",
};

/** Builds helm unless the cached build is current. */
export function ensureHelm(log?: (line: string) => void): Promise<void> {
  return ensureGoTools(HELM, log);
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs helm with `args` and a private home (no repositories, plugins or registry logins of the
 * user's are read). Never throws for a non-zero exit: the caller judges `code` and `stderr`.
 */
export function runHelm(args: readonly string[], home: string): Promise<HelmResult> {
  return new Promise((resolve, reject) => {
    execFile(
      HELM_BIN,
      [...args],
      {
        maxBuffer: 64 * 1024 * 1024,
        env: {
          NODE_ENV: process.env.NODE_ENV,
          PATH: process.env.PATH ?? "",
          HOME: home,
          HELM_CACHE_HOME: path.join(home, "cache"),
          HELM_CONFIG_HOME: path.join(home, "config"),
          HELM_DATA_HOME: path.join(home, "data"),
        },
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") return reject(error);
        resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr });
      },
    );
  });
}
