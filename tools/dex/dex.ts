/**
 * Dex, a real OpenID Connect issuer, declared as a Go tool in tools/dex/go.mod (a module of its
 * own) and built on first use by the same cached build as the control plane (cluster/build.ts).
 * Only the OIDC tests need it, so only they build it. Dex links SQLite through cgo (its command
 * refers to the SQLite storage even when the tests use memory storage), so the build needs a C
 * compiler (Debian's gcc and libc6-dev).
 */
import path from "node:path";
import { ensureGoTools, type GoToolBuild } from "../../cluster/build";

const DEX_DIR = import.meta.dirname;
/**
 * Dex v2.41.1: its module path has no /v2 suffix, so go.mod names the tag's commit by a
 * pseudo-version, and pins Dex's separate github.com/dexidp/dex/api/v2 module to the same commit
 * (its tagged v2.1.0 lacks API types v2.41 uses). The checksum database does not know that
 * pseudo-version of api/v2: its hash was recorded in go.sum once, so builds check against go.sum.
 */
export const DEX_VERSION = "v2.41.1";
export const DEX_BIN = path.join(DEX_DIR, "bin", "dex");

const DEX: GoToolBuild = {
  label: `Dex (${DEX_VERSION})`,
  moduleDir: DEX_DIR,
  binDir: path.join(DEX_DIR, "bin"),
  tools: ["github.com/dexidp/dex/cmd/dex"],
  ldflags: `-X main.version=${DEX_VERSION}`,
  env: { CGO_ENABLED: "1" },
  binaries: [DEX_BIN],
  coldEstimate: "about 2 minutes (215 CPU-seconds)",
};

/** Builds Dex unless the cached build is current. */
export function ensureDex(log?: (line: string) => void): Promise<void> {
  return ensureGoTools(DEX, log);
}
