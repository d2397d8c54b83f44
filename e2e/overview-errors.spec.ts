import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test, expect } from "../test/e2e/fixtures";
import { startControlPlane } from "../cluster/control-plane";
import { dashboardEnv } from "../cluster/harness/stack";
import { startDashboard } from "../test/dashboard-process";

test("Overview says plainly which server is unreachable when the apiserver stops", async ({
  page,
  cleanup,
}) => {
  test.setTimeout(150_000);
  const baseDir = mkdtempSync(path.join(os.tmpdir(), "portcullis-unreachable-"));
  cleanup.defer(() => rmSync(baseDir, { recursive: true, force: true }));
  // keepDir: the kubeconfig stays, as it does when a real apiserver goes away.
  const cp = await startControlPlane({
    dashboardUrl: "http://127.0.0.1:1",
    baseDir,
    keepDir: true,
  });
  cleanup.defer(() => cp.stop());
  const dashboard = await startDashboard(dashboardEnv(cp));
  cleanup.defer(() => dashboard.stop());

  await page.goto(dashboard.url);
  await expect(page.getByTestId("server-version")).toHaveText("v1.37.2");

  await cp.stop();
  await page.reload();
  const alert = page.getByRole("alert", { name: "Cluster error" });
  await expect(alert).toContainText("Cannot reach the cluster");
  await expect(alert).toContainText(cp.server);
  await expect(alert).toContainText("Unreachable");
  await expect(alert).toContainText("Is the apiserver running?");
  await page.screenshot({ path: "e2e/artifacts/overview-unreachable.png", fullPage: true });
});

test("Overview says the credentials were refused when the token is wrong", async ({
  page,
  stack,
  cleanup,
}) => {
  test.setTimeout(120_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-refused-"));
  cleanup.defer(() => rmSync(dir, { recursive: true, force: true }));
  // The stack's kubeconfig with every token replaced: the apiserver answers 401.
  let kubeconfig = readFileSync(stack.kubeconfig, "utf8");
  for (const token of Object.values(stack.tokens))
    kubeconfig = kubeconfig.replaceAll(token, "revoked-token");
  const file = path.join(dir, "kubeconfig");
  writeFileSync(file, kubeconfig, { mode: 0o600 });
  const dashboard = await startDashboard({ ...dashboardEnv(stack), KUBECONFIG: file });
  cleanup.defer(() => dashboard.stop());

  await page.goto(dashboard.url);
  const alert = page.getByRole("alert", { name: "Cluster error" });
  await expect(alert).toContainText("The cluster refused the credentials");
  await expect(alert).toContainText("401");
  await expect(alert).toContainText("Unauthorized");
  await expect(alert).toContainText(stack.server);
  await expect(alert).toContainText(stack.contexts.admin);
});
