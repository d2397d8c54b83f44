/** Starts an extra dashboard (`next start` on the production build) for tests that need their own. */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freePorts } from "../cluster/ports";
import { dashboardEnv, spawnDashboard, type StackInfo } from "../cluster/harness/stack";
import { startTcpRelay, type TcpRelay } from "./tcp-relay";

export interface DashboardProcess {
  url: string;
  pid: number | undefined;
  stop(): void;
  /** Sends a signal (SIGKILL for a crash) and resolves once the process has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Stops it (SIGTERM) and starts it again on the same port (a redeploy); resolves once it answers. */
  restart(): Promise<void>;
}

export async function startDashboard(env: NodeJS.ProcessEnv): Promise<DashboardProcess> {
  const [port] = (await freePorts(1)) as [number];
  const url = `http://127.0.0.1:${port}/`;
  const spawnAndWait = async (): Promise<ChildProcess> => {
    const child = spawnDashboard(env, port);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`dashboard exited with code ${child.exitCode}`);
      try {
        if ((await fetch(`${url}api/health`)).ok) return child;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error("dashboard did not start within 60 s");
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  let child = await spawnAndWait();
  const kill = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill(signal);
    });
  return {
    url,
    get pid() {
      return child.pid;
    },
    stop: () => child.kill("SIGTERM"),
    kill,
    restart: async () => {
      await kill("SIGTERM");
      child = await spawnAndWait();
    },
  };
}

/**
 * A dashboard of its own on the stack's control plane that reaches the apiserver through a TCP
 * relay (test/tcp-relay.ts: freeze a connection, cut the network and restore it), with its own
 * data directory and no trace receiver (the stack's dashboard holds that address).
 */
export async function startRelayedDashboard(
  stack: StackInfo,
  env: Record<string, string> = {},
): Promise<{ dashboard: DashboardProcess; relay: TcpRelay }> {
  const server = new URL(stack.server);
  const relay = await startTcpRelay(server.hostname, Number(server.port));
  const dir = mkdtempSync(path.join(stack.dir, "relayed-"));
  const kubeconfig = kubeconfigThroughRelay(stack, relay, dir);
  const base = dashboardEnv(stack);
  delete base.PORTCULLIS_OTLP_LISTEN;
  try {
    const dashboard = await startDashboard({
      ...base,
      KUBECONFIG: kubeconfig,
      PORTCULLIS_DATA_DIR: path.join(dir, "data"),
      ...env,
    });
    return { dashboard, relay };
  } catch (e) {
    await relay.close();
    throw e;
  }
}

/**
 * Writes the stack's kubeconfig into `dir` with the relay as the apiserver's address (its
 * certificate names 127.0.0.1, whatever the port); returns the file.
 */
export function kubeconfigThroughRelay(stack: StackInfo, relay: TcpRelay, dir: string): string {
  const file = path.join(dir, "kubeconfig");
  writeFileSync(
    file,
    readFileSync(stack.kubeconfig, "utf8").replace(
      `server: ${stack.server}`,
      `server: https://127.0.0.1:${relay.port}`,
    ),
    { mode: 0o600 },
  );
  return file;
}
