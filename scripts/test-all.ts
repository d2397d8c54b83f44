/**
 * `npm test`: every check the project has — first whether the machine has what the tests need
 * (one line naming all that is missing, before anything is built), then typecheck, lint and
 * format side by side, unit tests, then one real control plane + a production build of the
 * dashboard shared by the integration tests and the end-to-end tests in Chromium, and beside them
 * a second control plane for the oracles.
 * Closes with a table of each phase's time, then the `tests: …` line CI reads (always last).
 * `--only oracle` runs just the oracles. The 5-minute soak closes the run (PORTCULLIS_SOAK=0 leaves
 * it out).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import {
  buildDashboard,
  dashboardBuildIsCurrent,
  REPO_ROOT,
  startStack,
} from "../cluster/harness/stack";
import { ensureBuilt } from "../cluster/build";
import { machineProbe, missingPrerequisites, prerequisitesLine, soakRuns } from "./prerequisites";

const onlyOracle = process.argv.includes("--only") && process.argv.includes("oracle");

/**
 * Runs one step. With `captured`, its output is held back and printed in one piece when it
 * ends, so steps running side by side do not interleave their lines.
 */
function run(
  label: string,
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  captured = false,
): Promise<boolean> {
  const started = Date.now();
  const phase = { name: label, seconds: 0 };
  phases.push(phase);
  if (!captured) process.stderr.write(`\n▶ ${label}\n`);
  return new Promise((resolve) => {
    const output: Buffer[] = [];
    const child = spawn(cmd, args, {
      cwd: REPO_ROOT,
      env,
      stdio: captured ? ["ignore", "pipe", "pipe"] : "inherit",
    });
    child.stdout?.on("data", (b: Buffer) => output.push(b));
    child.stderr?.on("data", (b: Buffer) => output.push(b));
    child.on("error", (e) => {
      process.stderr.write(`${label}: ${e.message}\n`);
      resolve(false);
    });
    child.on("close", (code) => {
      const seconds = (phase.seconds = (Date.now() - started) / 1000);
      if (captured) {
        process.stderr.write(`\n▶ ${label}\n`);
        process.stderr.write(Buffer.concat(output));
      }
      process.stderr.write(
        `■ ${label}: ${code === 0 ? "ok" : `failed (exit ${code})`} in ${seconds.toFixed(0)} s\n`,
      );
      resolve(code === 0);
    });
  });
}

/** Each phase's wall time, in the order they started, for the closing table. */
const phases: { name: string; seconds: number }[] = [];

/** Times a phase that is not one child process (a build, the stack's start). */
async function timed<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const phase = { name, seconds: 0 };
  phases.push(phase);
  try {
    return await fn();
  } finally {
    phase.seconds = (Date.now() - started) / 1000;
  }
}

/** The closing table: where the run's time went. */
function phaseTable(totalSeconds: number): string {
  const rows = [...phases, { name: "total", seconds: totalSeconds }];
  const width = Math.max(...rows.map((r) => r.name.length));
  const line = (name: string, seconds: number) =>
    `  ${name.padEnd(width)}  ${seconds.toFixed(0).padStart(5)} s`;
  return [
    onlyOracle
      ? "\nphase times:"
      : "\nphase times (typecheck, lint, format and unused code side by side; the oracles beside the integration tests):",
    ...rows.map((r) => line(r.name, r.seconds)),
  ].join("\n");
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

/** The oracles' CPU priority beside the integration tests (nice(1): 0 is normal, 19 the lowest). */
const ORACLE_NICENESS = 19;

/**
 * Starts a control plane without a dashboard in a process of its own (`npm run stack --
 * --no-dashboard`, run through `prefix`, e.g. `nice`, which its children inherit), its lines on
 * stderr prefixed with `label`. Resolves once it names its stack file; `stop` ends it (SIGTERM,
 * on which it stops the control plane) and waits for it to exit.
 */
function startStackProcess(
  prefix: string[],
  label: string,
): Promise<{ file: string; stop(): Promise<void> }> {
  const [cmd = "", ...args] = [...prefix, bin("tsx"), "scripts/stack.ts", "--no-dashboard"];
  const child = spawn(cmd, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  let rest = "";
  child.stderr.on("data", (b: Buffer) => {
    const lines = (rest + b.toString()).split("\n");
    rest = lines.pop() ?? "";
    for (const l of lines) process.stderr.write(`${label}${l}\n`);
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString();
      const file = /^PORTCULLIS_STACK=(.+)$/m.exec(out)?.[1];
      if (file === undefined) return;
      child.stdout.removeAllListeners("data");
      child.stdout.resume();
      resolve({
        file,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
          await exited;
        },
      });
    });
    child.once("error", reject);
    void exited.then(() => reject(new Error(`${label}the control plane exited before it was up`)));
  });
}

/** Whether the run closes with the 5-minute soak. */
const soak = soakRuns(process.env);

/** Null when the machine has everything; else the one line naming all that is missing. */
function preflight(): string | null {
  return prerequisitesLine(
    missingPrerequisites(machineProbe(), { browser: !onlyOracle, soak: !onlyOracle && soak }),
  );
}

const started = Date.now();

async function main(): Promise<number> {
  const missing = await timed("prerequisites", () => Promise.resolve(preflight()));
  if (missing) {
    process.stderr.write(`${missing}\n`);
    return 1;
  }
  rmSync(RESULTS_DIR, { recursive: true, force: true });
  mkdirSync(RESULTS_DIR, { recursive: true });
  const failed: string[] = [];
  const step = async (
    label: string,
    cmd: string,
    args: string[],
    env?: NodeJS.ProcessEnv,
    captured?: boolean,
  ) => {
    if (!(await run(label, cmd, args, env, captured))) failed.push(label);
  };
  if (!onlyOracle) {
    // Independent of each other and each mostly one core: side by side they take about as long
    // as the longest of them.
    await Promise.all([
      step("typecheck", bin("tsc"), ["--noEmit"], undefined, true),
      step("lint", bin("eslint"), [".", "--max-warnings", "0"], undefined, true),
      step("format", bin("prettier"), ["--check", "."], undefined, true),
      // Unused files, exports and dependencies: an export nothing imports is dead or needlessly public.
      step("unused code", bin("knip"), ["--no-progress"], undefined, true),
    ]);
    await step("unit tests", bin("vitest"), vitestArgs("unit"));
    count("vitest-unit.json", "vitest");
  }
  await timed("build the control plane (cached)", () => ensureBuilt());
  await step("build the command line", bin("tsx"), ["cli/build.ts"]);
  if (!onlyOracle) {
    // A build made from exactly these sources (by content) is used as it is, as `npm run stack` does.
    await timed("build the dashboard", async () => {
      if (dashboardBuildIsCurrent()) process.stderr.write("\nthe dashboard's build is current\n");
      else await buildDashboard((l) => process.stderr.write(l + "\n"));
    });
  }
  // The oracles run on a control plane of their own (no dashboard), started beside the shared
  // stack: they register cluster-wide random hooks that the other suites must not meet. They and
  // their control plane run at a lower CPU priority (`nice`) (docs/testing.md).
  const nice = onlyOracle ? [] : ["nice", "-n", String(ORACLE_NICENESS)];
  const [sharedStart, oracleStart] = await Promise.allSettled([
    onlyOracle ? Promise.resolve(undefined) : timed("start the stack", () => startStack()),
    timed("start the oracles' control plane", () => startStackProcess(nice, "oracles: ")),
  ]);
  if (sharedStart.status === "rejected" || oracleStart.status === "rejected") {
    await Promise.all(
      [sharedStart, oracleStart].map((r) => (r.status === "fulfilled" ? r.value?.stop() : null)),
    );
    throw sharedStart.status === "rejected"
      ? sharedStart.reason
      : oracleStart.status === "rejected"
        ? oracleStart.reason
        : undefined;
  }
  const stack = sharedStart.value;
  const oracleStack = oracleStart.value;
  // The oracles run beside the integration tests, which mostly wait (on watches, timeouts, a
  // replica's restart): at a lower priority they take the cores those leave idle.
  const oracles = (async () => {
    try {
      // Its output is held back and printed in one piece when it ends.
      const [cmd = "", ...args] = [...nice, bin("vitest"), ...vitestArgs("oracle")];
      await step(
        "oracles",
        cmd,
        args,
        { ...process.env, PORTCULLIS_STACK: oracleStack.file },
        !onlyOracle,
      );
      count("vitest-oracle.json", "vitest");
    } finally {
      await timed("stop the oracles' control plane", () => oracleStack.stop());
    }
  })();
  try {
    if (stack) {
      const env = { ...process.env, PORTCULLIS_STACK: stack.file };
      try {
        await step("integration tests", bin("vitest"), vitestArgs("integration"), env);
        count("vitest-integration.json", "vitest");
        // The end-to-end tests wait 10 s for what a page shows: they get the cores to themselves.
        await oracles;
        await step("end-to-end tests (Chromium)", bin("playwright"), ["test"], {
          ...env,
          PORTCULLIS_PLAYWRIGHT_JSON: path.join(RESULTS_DIR, "playwright.json"),
        });
        count("playwright.json", "playwright");
      } finally {
        await timed("stop the stack", () => stack.stop());
      }
    }
  } finally {
    await oracles;
  }
  // The 5-minute soak (docs/testing.md, "Soak and faults"): its own control plane, replicas and
  // browser tabs, after the end-to-end tests have stopped theirs. About 6.5 minutes with its
  // set-up; PORTCULLIS_SOAK=0 leaves it out. Its figures are printed with its output.
  if (stack && soak) await step("soak (5 minutes)", bin("tsx"), ["bench/soak.ts", "--ci"]);
  const summary = `${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`;
  if (failed.length > 0) {
    process.stderr.write(`\nFAILED: ${failed.join(", ")}\n`);
    for (const f of failures) process.stderr.write(`  ✗ ${f}\n`);
  } else {
    process.stderr.write("\nall checks passed\n");
  }
  process.stderr.write(phaseTable((Date.now() - started) / 1000) + "\n");
  // The last line, always: CI reads it.
  process.stdout.write(`tests: ${summary}\n`);
  return failed.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(phaseTable((Date.now() - started) / 1000) + "\n");
    process.stderr.write(`test run aborted: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
