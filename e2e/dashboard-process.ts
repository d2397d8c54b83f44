/** Starts an extra dashboard (`next start` on the production build) for tests that need their own. */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { freePorts } from "../cluster/ports";
import { REPO_ROOT } from "../cluster/harness/stack";

export interface DashboardProcess {
  url: string;
  pid: number | undefined;
  stop(): void;
  /** Sends a signal (SIGKILL for a crash) and resolves once the process has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

export async function startDashboard(env: NodeJS.ProcessEnv): Promise<DashboardProcess> {
  const [port] = (await freePorts(1)) as [number];
  const child: ChildProcess = spawn(
    process.execPath,
    [
      path.join(REPO_ROOT, "node_modules/next/dist/bin/next"),
      "start",
      "-p",
      String(port),
      "-H",
      "127.0.0.1",
    ],
    { cwd: REPO_ROOT, env, stdio: "ignore" },
  );
  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`dashboard exited with code ${child.exitCode}`);
    try {
      if ((await fetch(`${url}api/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error("dashboard did not start within 60 s");
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    pid: child.pid,
    stop: () => child.kill("SIGTERM"),
    kill: (signal) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill(signal);
      }),
  };
}
