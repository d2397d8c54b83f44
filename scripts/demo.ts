/**
 * `npm run demo`: the dashboard's production build on the built-in local control plane, seeded
 * with a realistic admission set-up (cluster/harness/demo-seed.ts) and kept busy by a bounded
 * traffic generator. Builds what is missing first (the control plane once, about 10 minutes; the
 * dashboard, a few minutes), prints the URL once every page has data, and on Ctrl-C stops the
 * traffic, the dashboard, the webhook servers and the control plane, leaving no process or file.
 *
 * PORT (default 3000) picks the dashboard's port; it listens on 127.0.0.1 only (scripts/start.mjs).
 */
import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { ensureBuilt } from "../cluster/build";
import { launch, LOCAL_CLUSTER_INFO, LOCAL_KUBECONFIG } from "../cluster/launcher";
import {
  buildDashboard,
  dashboardBuildIsCurrent,
  dashboardEnv,
  spawnDashboard,
} from "../cluster/harness/stack";
import { seedDemo } from "../cluster/harness/demo-seed";
import { startTraffic } from "../cluster/harness/demo-traffic";
import { waitForDemoData } from "../cluster/harness/demo-ready";

const port = Number(process.env.PORT ?? 3000);
const dashboardUrl = `http://127.0.0.1:${port}`;
const log = (l: string) => process.stderr.write(l + "\n");

// Everything started so far, stopped in reverse order on Ctrl-C, SIGTERM or a failure.
const cleanups: Array<() => Promise<void>> = [];
let starting: Promise<unknown> = Promise.resolve();
let stopping = false;
const abort = new AbortController();

async function shutdown(code: number, why: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  abort.abort();
  log(`demo: ${why}, stopping…`);
  await starting.catch(() => undefined); // let a half-done step finish so it can be undone
  for (const c of cleanups.reverse()) await c().catch((e: unknown) => log(`demo: ${String(e)}`));
  log("demo: stopped");
  process.exit(code);
}
for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(s, () => void shutdown(0, s));

/** Runs one start-up step; after a signal, nothing new starts. */
async function step<T>(p: () => Promise<T>): Promise<T> {
  if (stopping) await new Promise(() => undefined); // shutdown() exits the process
  const run = p();
  starting = run;
  return run;
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const t = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(t);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

async function main(): Promise<void> {
  const started = Date.now();
  log("demo: Portcullis on a local Kubernetes control plane");
  await step(() => ensureBuilt(log));
  if (!dashboardBuildIsCurrent()) {
    log(
      "demo: building the dashboard's production build (next build; a few minutes, when the code changed)",
    );
    await step(() => buildDashboard(log));
  }

  log("demo: starting kube-apiserver, etcd and kube-controller-manager…");
  const cp = await step(() => launch(dashboardUrl));
  cleanups.push(async () => {
    await cp.stop();
    rmSync(LOCAL_KUBECONFIG, { force: true });
    rmSync(LOCAL_CLUSTER_INFO, { force: true });
  });
  log(`demo: Kubernetes ${cp.version} at ${cp.server}`);

  const seeded = await step(() => seedDemo(cp, log));
  cleanups.push(() => seeded.close());

  log("demo: starting the dashboard (production build)…");
  const dashboard = spawnDashboard(dashboardEnv(cp), port, ["ignore", "ignore", "inherit"]);
  cleanups.push(() => stopChild(dashboard));
  // Runs before the dashboard stops: what the apiserver sends it is not retried while the
  // control plane stops (ControlPlane.drain).
  cleanups.push(() => Promise.resolve(cp.drain()));
  // Its own process group: if this process dies unexpectedly, it must not outlive it.
  process.once("exit", () => dashboard.kill("SIGKILL"));
  dashboard.on("exit", (code) => {
    if (!stopping) void shutdown(1, `the dashboard exited with code ${code}`);
  });

  const traffic = startTraffic(cp);
  cleanups.push(() => traffic.stop());

  await waitForDemoData(dashboardUrl, cp.contexts.admin, 120_000, log, abort.signal);
  if (stopping) return;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `\nPortcullis is ready (${seconds} s): ${dashboardUrl}/\n` +
      `kubeconfig of the local cluster: ${LOCAL_KUBECONFIG}\n` +
      "Ctrl-C stops the traffic, the dashboard and the cluster.\n\n",
  );
}

main().catch((e: unknown) => {
  if (stopping) return;
  log(`demo: ${e instanceof Error ? e.message : String(e)}`);
  void shutdown(1, "start-up failed");
});
