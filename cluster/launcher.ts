/**
 * `npm run cluster`: builds (once) and starts the local control plane, writes its kubeconfig to
 * .portcullis/kubeconfig, and stops everything on Ctrl-C / SIGTERM.
 *
 * PORTCULLIS_DASHBOARD_URL (default http://127.0.0.1:3000) is where the audit webhook is relayed.
 * PORTCULLIS_LEGACY_CRDS=1 also serves the historical admission kinds (cluster/legacy-crds.ts).
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import path from "node:path";
import { ensureBuilt } from "./build";
import { startControlPlane, type ControlPlane } from "./control-plane";
import { STATE_DIR } from "./harness/stack";
import { installLegacyCrds, LEGACY_ADMISSION_GROUP } from "./legacy-crds";

/** Stable paths a running `npm run cluster` publishes for the dashboard and for humans. */
export const LOCAL_KUBECONFIG = path.join(STATE_DIR, "kubeconfig");
export const LOCAL_CLUSTER_INFO = path.join(STATE_DIR, "cluster.json");

/** Starts the control plane and publishes its kubeconfig and info at the stable paths. */
export async function launch(dashboardUrl: string): Promise<ControlPlane> {
  const log = (l: string) => process.stderr.write(l + "\n");
  await ensureBuilt(log);
  mkdirSync(STATE_DIR, { recursive: true });
  const cp = await startControlPlane({ dashboardUrl, baseDir: path.join(STATE_DIR, "runs"), log });
  if (process.env.PORTCULLIS_LEGACY_CRDS === "1") {
    // Asked for: serve the historical admission kinds too (then start the dashboard with
    // PORTCULLIS_LEGACY_ADMISSION_GROUP=${LEGACY_ADMISSION_GROUP}).
    await installLegacyCrds({
      server: cp.server,
      ca: readFileSync(cp.caFile),
      token: cp.tokens.admin,
    });
    log(`cluster: historical admission kinds served in ${LEGACY_ADMISSION_GROUP}`);
  }
  copyFileSync(cp.kubeconfig, LOCAL_KUBECONFIG);
  const { stop: _stop, ...info } = cp;
  writeFileSync(
    LOCAL_CLUSTER_INFO,
    JSON.stringify({ ...info, kubeconfig: LOCAL_KUBECONFIG }, null, 2),
    { mode: 0o600 },
  );
  return cp;
}

/** Stops `cp` on the first SIGINT/SIGTERM/SIGHUP, removes the published files, then exits. */
export function stopOnSignal(cp: ControlPlane, before?: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`cluster: ${signal}, stopping…\n`);
    void (async () => {
      await before?.();
      await cp.stop();
      rmSync(LOCAL_KUBECONFIG, { force: true });
      rmSync(LOCAL_CLUSTER_INFO, { force: true });
      process.stderr.write("cluster: stopped\n");
      process.exit(0);
    })();
  };
  for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(s, () => stop(s));
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const dashboardUrl = process.env.PORTCULLIS_DASHBOARD_URL ?? "http://127.0.0.1:3000";
  launch(dashboardUrl)
    .then((cp) => {
      process.stdout.write(
        [
          `Kubernetes ${cp.version} is running at ${cp.server}`,
          `kubeconfig: ${LOCAL_KUBECONFIG}  (contexts: ${Object.values(cp.contexts).join(", ")})`,
          `audit webhook → ${dashboardUrl}/api/audit (token in ${LOCAL_CLUSTER_INFO})`,
          "Press Ctrl-C to stop.",
          "",
        ].join("\n"),
      );
      stopOnSignal(cp);
    })
    .catch((e: unknown) => {
      process.stderr.write(`cluster: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    });
}
