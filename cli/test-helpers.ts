/** Running the built command as a subprocess, for the integration and oracle tests. */
import { spawn } from "node:child_process";
import path from "node:path";

const LAUNCHER = path.resolve(import.meta.dirname, "..", "bin", "portcullis.mjs");

/** What one run printed and how it exited. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node bin/portcullis.mjs ...args` (what `npx portcullis` runs), optionally with stdin. */
export function runCli(
  args: readonly string[],
  opts: { env?: NodeJS.ProcessEnv; stdin?: string; cwd?: string } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LAUNCHER, ...args], {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? "");
  });
}
