/** Starts an extra dashboard (`next start` on the production build) for tests that need their own. */
import type { ChildProcess } from "node:child_process";
import { freePorts } from "../cluster/ports";
import { spawnDashboard } from "../cluster/harness/stack";

export interface DashboardProcess {
  url: string;
  pid: number | undefined;
  stop(): void;
  /** Sends a signal (SIGKILL for a crash) and resolves once the process has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

export async function startDashboard(env: NodeJS.ProcessEnv): Promise<DashboardProcess> {
  const [port] = (await freePorts(1)) as [number];
  const child: ChildProcess = spawnDashboard(env, port);
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
