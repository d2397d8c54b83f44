/**
 * `npm run test:versions`: the validation and matching oracles (vitest project `oracle`) on the
 * older minors' apiservers, one minor after another, each on a control plane of its own built from
 * that minor's module (cluster/minors/<minor>, built on first use: about 13 minutes each on
 * 2 cores, then cached by go.sum). Not part of `npm test` or CI: the builds and a second and third
 * oracle run do not fit CI's budget.
 *
 *   npm run test:versions                    1.35 and 1.36
 *   npm run test:versions -- --minor 1.36    one minor (1.35, 1.36, 1.37, or all)
 *   npm run test:versions -- --minor 1.35 -- lib/admission/validate   only some oracle files
 *
 * Then, unless oracle files were named, the fleet of minors (server/fleet/fleet-minors.int.test.ts,
 * integration project): a 1.36 and a 1.35 control plane beside a 1.37 one, when both older minors
 * are built.
 *
 * Ends with one line per minor: the oracle cases that agree with that minor's apiserver, those
 * that do not, and those skipped (a test of a feature the minor does not have by default says
 * so in its name), a line for the fleet of minors, then the `tests: …` line as `npm test` prints
 * it.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../cluster/harness/stack";
import {
  CONTROL_PLANE_MINORS,
  ensureBuilt,
  isBuilt,
  parseControlPlaneMinor,
  type ControlPlaneMinor,
} from "../cluster/build";

/** The fleet of three minors, run once after the oracles (on a 1.37 stack). */
const FLEET_OF_MINORS = "server/fleet/fleet-minors.int.test.ts";

const RESULTS_DIR = path.join(REPO_ROOT, "test-results", "versions");

/** The minors to run: `--minor X` (X a minor or `all`), else the two older ones. */
export function minorsToRun(argv: readonly string[]): ControlPlaneMinor[] {
  const i = argv.indexOf("--minor");
  if (i < 0) return ["1.35", "1.36"];
  const v = argv[i + 1] ?? "";
  if (v === "all") return [...CONTROL_PLANE_MINORS];
  const m = parseControlPlaneMinor(v);
  if (!m)
    throw new Error(
      `--minor: expected one of ${CONTROL_PLANE_MINORS.join(", ")} or all, got "${v}"`,
    );
  return [m];
}

/** Oracle files or filters after `--` (passed on to vitest). */
function filters(argv: readonly string[]): string[] {
  const i = argv.indexOf("--");
  return i < 0 ? [] : argv.slice(i + 1);
}

interface MinorResult {
  /** The minor, or "fleet" for the fleet of minors. */
  minor: ControlPlaneMinor | "fleet";
  passed: number;
  failed: number;
  skipped: number;
  failures: string[];
  seconds: number;
}

const reportFile = (minor: MinorResult["minor"]) =>
  path.join(RESULTS_DIR, `vitest-oracle-${minor}.json`);

/**
 * The oracle project on `minor`'s control plane, or (minor "fleet") the fleet of minors in the
 * integration project on the newest's.
 */
function runOracles(minor: MinorResult["minor"], extra: string[]): Promise<number | null> {
  const out = reportFile(minor);
  rmSync(out, { force: true });
  const args = [
    "run",
    "--project",
    minor === "fleet" ? "integration" : "oracle",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${out}`,
    ...(minor === "fleet" ? [FLEET_OF_MINORS] : extra),
  ];
  return new Promise((resolve) => {
    const child = spawn(path.join(REPO_ROOT, "node_modules", ".bin", "vitest"), args, {
      cwd: REPO_ROOT,
      // test/global-stack.ts starts the control plane at this minor, without the dashboard.
      env: {
        ...process.env,
        PORTCULLIS_KUBERNETES_MINOR: minor === "fleet" ? "1.37" : minor,
        PORTCULLIS_NO_DASHBOARD: "1",
      },
      stdio: "inherit",
    });
    child.on("error", () => resolve(null));
    child.on("close", (code) => resolve(code));
  });
}

function readResult(minor: MinorResult["minor"], seconds: number): MinorResult {
  const file = reportFile(minor);
  if (!existsSync(file))
    return { minor, passed: 0, failed: 1, skipped: 0, failures: ["no report written"], seconds };
  const r = JSON.parse(readFileSync(file, "utf8")) as {
    numPassedTests?: number;
    numFailedTests?: number;
    numPendingTests?: number;
    numTodoTests?: number;
    testResults?: {
      name: string;
      message?: string;
      status?: string;
      assertionResults: { fullName: string; status: string }[];
    }[];
  };
  const failures: string[] = [];
  for (const f of r.testResults ?? []) {
    const rel = path.relative(REPO_ROOT, f.name);
    for (const a of f.assertionResults)
      if (a.status === "failed") failures.push(`${rel} › ${a.fullName}`);
    if (f.status === "failed" && f.assertionResults.every((a) => a.status !== "failed"))
      failures.push(`${rel}: ${(f.message ?? "failed").split("\n")[0]}`);
  }
  return {
    minor,
    passed: r.numPassedTests ?? 0,
    failed: Math.max(r.numFailedTests ?? 0, failures.length),
    skipped: (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0),
    failures,
    seconds,
  };
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const minors = minorsToRun(argv);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const results: MinorResult[] = [];
  for (const minor of minors) {
    process.stderr.write(`\n▶ oracles on Kubernetes ${minor}\n`);
    const started = Date.now();
    try {
      await ensureBuilt(undefined, minor);
    } catch (e) {
      process.stderr.write(`build of ${minor}: ${e instanceof Error ? e.message : String(e)}\n`);
      results.push({
        minor,
        passed: 0,
        failed: 1,
        skipped: 0,
        failures: ["build failed"],
        seconds: 0,
      });
      continue;
    }
    await runOracles(minor, filters(argv));
    results.push(readResult(minor, (Date.now() - started) / 1000));
  }
  if (filters(argv).length > 0) {
    // Only the oracle files named.
  } else if (isBuilt("1.35") && isBuilt("1.36")) {
    process.stderr.write("\n▶ the fleet of minors (1.37, 1.36, 1.35)\n");
    const started = Date.now();
    await runOracles("fleet", []);
    results.push(readResult("fleet", (Date.now() - started) / 1000));
  } else
    process.stderr.write(
      "\nthe fleet of minors: not run (it needs both 1.35 and 1.36 built: npm run test:versions, or --minor all)\n",
    );
  process.stderr.write("\noracles per minor (cases that agree with that minor's apiserver):\n");
  for (const r of results) {
    process.stderr.write(
      r.minor === "fleet"
        ? `  fleet of 1.37, 1.36 and 1.35: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped (${r.seconds.toFixed(0)} s)\n`
        : `  Kubernetes ${r.minor}: ${r.passed} agree, ${r.failed} disagree, ${r.skipped} skipped (${r.seconds.toFixed(0)} s)\n`,
    );
    for (const f of r.failures) process.stderr.write(`    ✗ ${f}\n`);
  }
  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed, 0);
  const skipped = results.reduce((n, r) => n + r.skipped, 0);
  process.stdout.write(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  return failed > 0 ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
