/**
 * `npm test`: every check the project has, in order — typecheck, lint, unit tests, then one
 * real control plane + a production build of the dashboard shared by the integration tests,
 * the oracles and the end-to-end tests in Chromium. `--only oracle` runs just the oracles.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { buildDashboard, REPO_ROOT, startStack } from "../cluster/harness/stack";
import { ensureBuilt } from "../cluster/build";

const onlyOracle = process.argv.includes("--only") && process.argv.includes("oracle");

function run(
  label: string,
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  const started = Date.now();
  process.stderr.write(`\n▶ ${label}\n`);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: REPO_ROOT, env, stdio: "inherit" });
    child.on("error", (e) => {
      process.stderr.write(`${label}: ${e.message}\n`);
      resolve(false);
    });
    child.on("exit", (code) => {
      process.stderr.write(
        `■ ${label}: ${code === 0 ? "ok" : `failed (exit ${code})`} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
      );
      resolve(code === 0);
    });
  });
}

const bin = (name: string) => path.join(REPO_ROOT, "node_modules", ".bin", name);

function preflight(): void {
  const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!onlyOracle && !existsSync(chromium)) {
    throw new Error(
      `no Chromium at ${chromium}: install Debian's (apt-get install -y chromium) or set CHROMIUM_PATH`,
    );
  }
}

async function main(): Promise<number> {
  preflight();
  const failed: string[] = [];
  const step = async (label: string, cmd: string, args: string[], env?: NodeJS.ProcessEnv) => {
    if (!(await run(label, cmd, args, env))) failed.push(label);
  };
  if (!onlyOracle) {
    await step("typecheck", bin("tsc"), ["--noEmit"]);
    await step("lint", bin("eslint"), [".", "--max-warnings", "0"]);
    await step("format", bin("prettier"), ["--check", "."]);
    await step("unit tests", bin("vitest"), ["run", "--project", "unit"]);
  }
  await ensureBuilt();
  await step("build the command line", bin("tsx"), ["cli/build.ts"]);
  if (!onlyOracle) await buildDashboard((l) => process.stderr.write(l + "\n"));
  const stack = await startStack({ dashboard: !onlyOracle });
  const env = { ...process.env, PORTCULLIS_STACK: stack.file };
  try {
    if (!onlyOracle)
      await step("integration tests", bin("vitest"), ["run", "--project", "integration"], env);
    await step("oracles", bin("vitest"), ["run", "--project", "oracle"], env);
    if (!onlyOracle) await step("end-to-end tests (Chromium)", bin("playwright"), ["test"], env);
  } finally {
    await stack.stop();
  }
  if (failed.length > 0) {
    process.stderr.write(`\nFAILED: ${failed.join(", ")}\n`);
    return 1;
  }
  process.stderr.write("\nall checks passed\n");
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`test run aborted: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
