import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test, expect } from "./fixtures";
import { startControlPlane, type ControlPlane } from "../cluster/control-plane";
import { freePorts } from "../cluster/ports";
import { dashboardEnv, REPO_ROOT } from "../cluster/harness/stack";

test("Overview says plainly which server is unreachable when the apiserver stops", async ({
  page,
}) => {
  test.setTimeout(150_000);
  const baseDir = mkdtempSync(path.join(os.tmpdir(), "portcullis-unreachable-"));
  let cp: ControlPlane | undefined;
  let dashboard: ChildProcess | undefined;
  try {
    // keepDir: the kubeconfig stays, as it does when a real apiserver goes away.
    cp = await startControlPlane({ dashboardUrl: "http://127.0.0.1:1", baseDir, keepDir: true });
    const [port] = (await freePorts(1)) as [number];
    dashboard = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, "node_modules/next/dist/bin/next"),
        "start",
        "-p",
        String(port),
        "-H",
        "127.0.0.1",
      ],
      { cwd: REPO_ROOT, env: dashboardEnv(cp), stdio: "ignore" },
    );
    const url = `http://127.0.0.1:${port}/`;
    await expect(async () => expect((await fetch(`${url}api/health`)).ok).toBe(true)).toPass({
      timeout: 60_000,
    });

    await page.goto(url);
    await expect(page.getByTestId("server-version")).toHaveText("v1.37.2");

    await cp.stop();
    await page.reload();
    const alert = page.getByRole("alert", { name: "Cluster error" });
    await expect(alert).toContainText("Cannot reach the cluster");
    await expect(alert).toContainText(cp.server);
    await expect(alert).toContainText("Unreachable");
    await expect(alert).toContainText("Is the apiserver running?");
    await page.screenshot({ path: "e2e/artifacts/overview-unreachable.png", fullPage: true });
  } finally {
    dashboard?.kill("SIGTERM");
    await cp?.stop();
    rmSync(baseDir, { recursive: true, force: true });
  }
});
