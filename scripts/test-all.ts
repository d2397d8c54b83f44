/**
 * `npm test`: every check the project has, in order — typecheck, lint, unit tests, then one
 * real control plane + a production build of the dashboard shared by the integration tests,
 * the oracles and the end-to-end tests in Chromium. `--only oracle` runs just the oracles.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
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

/** Where the test runners leave machine-readable results, summed into one closing line. */
const RESULTS_DIR = path.join(REPO_ROOT, ".portcullis", "results");
const totals = { passed: 0, failed: 0, skipped: 0 };
/** Each failed test, named with its file and the first line of its error, repeated at the end. */
const failures: string[] = [];

const firstLine = (message: string | undefined): string =>
  stripVTControlCharacters(message ?? "")
    .trim()
    .split("\n", 1)
    .join("")
    .slice(0, 300);

type PlaywrightSuite = {
  file?: string;
  specs?: {
    title: string;
    line?: number;
    tests: { status?: string; results: { error?: { message?: string } }[] }[];
  }[];
  suites?: PlaywrightSuite[];
};

function playwrightFailures(suite: PlaywrightSuite, file: string | undefined): void {
  const here = suite.file ?? file;
  for (const spec of suite.specs ?? []) {
    for (const t of spec.tests) {
      if (t.status !== "unexpected") continue;
      const last = t.results.at(-1);
      failures.push(
        `${here}:${spec.line ?? 0} › ${spec.title}\n    ${firstLine(last?.error?.message)}`,
      );
    }
  }
  for (const s of suite.suites ?? []) playwrightFailures(s, here);
}

/** vitest with its usual output plus a JSON report named `name`. */
function vitestArgs(project: string): string[] {
  const out = path.join(RESULTS_DIR, `vitest-${project}.json`);
  return [
    "run",
    "--project",
    project,
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${out}`,
  ];
}

/** Adds a runner's JSON report to the totals; a missing report counts as one failure. */
function count(file: string, kind: "vitest" | "playwright"): void {
  const full = path.join(RESULTS_DIR, file);
  if (!existsSync(full)) {
    totals.failed += 1;
    return;
  }
  const r = JSON.parse(readFileSync(full, "utf8")) as {
    numPassedTests?: number;
    numFailedTests?: number;
    numPendingTests?: number;
    numTodoTests?: number;
    testResults?: {
      name: string;
      message?: string;
      status?: string;
      assertionResults: { fullName: string; status: string; failureMessages?: string[] }[];
    }[];
    suites?: PlaywrightSuite[];
    stats?: { expected?: number; unexpected?: number; skipped?: number; flaky?: number };
  };
  if (kind === "vitest") {
    totals.passed += r.numPassedTests ?? 0;
    totals.failed += r.numFailedTests ?? 0;
    totals.skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    for (const f of r.testResults ?? []) {
      const name = path.relative(REPO_ROOT, f.name);
      const failed = f.assertionResults.filter((a) => a.status === "failed");
      for (const a of failed) {
        failures.push(`${name} › ${a.fullName}\n    ${firstLine(a.failureMessages?.[0])}`);
      }
      // A file that failed outside any test (a hook, an import) has no failed assertion.
      if (failed.length === 0 && f.status === "failed") {
        failures.push(`${name} (the file itself)\n    ${firstLine(f.message)}`);
      }
    }
  } else {
    for (const s of r.suites ?? []) playwrightFailures(s, undefined);
    totals.passed += (r.stats?.expected ?? 0) + (r.stats?.flaky ?? 0);
    totals.failed += r.stats?.unexpected ?? 0;
    totals.skipped += r.stats?.skipped ?? 0;
  }
}

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
  rmSync(RESULTS_DIR, { recursive: true, force: true });
  mkdirSync(RESULTS_DIR, { recursive: true });
  const failed: string[] = [];
  const step = async (label: string, cmd: string, args: string[], env?: NodeJS.ProcessEnv) => {
    if (!(await run(label, cmd, args, env))) failed.push(label);
  };
  if (!onlyOracle) {
    await step("typecheck", bin("tsc"), ["--noEmit"]);
    await step("lint", bin("eslint"), [".", "--max-warnings", "0"]);
    await step("format", bin("prettier"), ["--check", "."]);
    await step("unit tests", bin("vitest"), vitestArgs("unit"));
    count("vitest-unit.json", "vitest");
  }
  await ensureBuilt();
  await step("build the command line", bin("tsx"), ["cli/build.ts"]);
  if (!onlyOracle) await buildDashboard((l) => process.stderr.write(l + "\n"));
  const stack = await startStack({ dashboard: !onlyOracle });
  const env = { ...process.env, PORTCULLIS_STACK: stack.file };
  try {
    if (!onlyOracle) {
      await step("integration tests", bin("vitest"), vitestArgs("integration"), env);
      count("vitest-integration.json", "vitest");
    }
    await step("oracles", bin("vitest"), vitestArgs("oracle"), env);
    count("vitest-oracle.json", "vitest");
    if (!onlyOracle) {
      await step("end-to-end tests (Chromium)", bin("playwright"), ["test"], {
        ...env,
        PORTCULLIS_PLAYWRIGHT_JSON: path.join(RESULTS_DIR, "playwright.json"),
      });
      count("playwright.json", "playwright");
    }
  } finally {
    await stack.stop();
  }
  const summary = `${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`;
  if (failed.length > 0) {
    process.stderr.write(`\nFAILED: ${failed.join(", ")}\n`);
    for (const f of failures) process.stderr.write(`  ✗ ${f}\n`);
    process.stdout.write(`tests: ${summary}\n`);
    return 1;
  }
  process.stderr.write("\nall checks passed\n");
  process.stdout.write(`tests: ${summary}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`test run aborted: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
