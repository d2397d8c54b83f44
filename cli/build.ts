/**
 * Builds the command line into plain JavaScript for Node 20 (no TypeScript loader needed):
 * dist/cli/portcullis.mjs plus lazily loaded chunks, npm packages left as imports from
 * node_modules. `npm run build:cli` runs this file.
 */
import { build, type Plugin } from "esbuild";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = path.resolve(import.meta.dirname, "..");

/** The bundle's entry, relative to the repository. */
export const CLI_BUNDLE = path.join(ROOT, "dist", "cli", "portcullis.mjs");

// The command line shares only plain-Node server modules (kubeconfig, client, admission state).
// "server-only" marks modules that need the Next server: reaching one from cli/ is a mistake, so
// the build fails naming the importer instead of bundling a module that throws at run time.
const noServerOnly: Plugin = {
  name: "no-server-only",
  setup(b) {
    b.onResolve({ filter: /^server-only$/ }, (args) => ({
      errors: [
        {
          text: `${path.relative(ROOT, args.importer)} imports "server-only": the command line may use only plain-Node server modules`,
        },
      ],
    }));
  },
};

/** Builds dist/cli; resolves when written. */
export async function buildCli(): Promise<void> {
  // Chunk names carry content hashes: clear the old ones.
  rmSync(path.dirname(CLI_BUNDLE), { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: { portcullis: "cli/entry.ts" },
    outdir: "dist/cli",
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    plugins: [noServerOnly],
    tsconfig: "tsconfig.json",
    logLevel: "warning",
    legalComments: "none",
    banner: { js: "// Built by `npm run build:cli` from cli/; do not edit." },
  });
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const ent of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, ent.name);
    if (ent.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (/\.(ts|json)$/.test(ent.name) && !/\.test\.ts$/.test(ent.name))
      newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** Builds unless the bundle is newer than every source it is made from (tests call this). */
export async function ensureCliBuilt(): Promise<void> {
  const sources = ["cli", "lib", "server/kube"].map((d) => newestSource(path.join(ROOT, d)));
  const pkg = statSync(path.join(ROOT, "package.json")).mtimeMs;
  if (existsSync(CLI_BUNDLE) && statSync(CLI_BUNDLE).mtimeMs > Math.max(pkg, ...sources)) return;
  await buildCli();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await buildCli();
  process.stderr.write(`built ${path.relative(process.cwd(), CLI_BUNDLE)}\n`);
}
