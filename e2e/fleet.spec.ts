/**
 * The fleet page on a dashboard of its own whose kubeconfig holds four contexts: the stack's
 * control plane, a second control plane of the same binaries, a server nothing listens on and one
 * that accepts connections and never answers. Every context is a row at once; the failing ones
 * say which error, after how long; the same configuration with another failurePolicy in one
 * cluster is drift, highlighted, and "only what differs" hides what does not; a row's link opens
 * the cluster in a tab of its own context.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import path from "node:path";
import { test, expect } from "../test/e2e/fixtures";
import { serious } from "../test/e2e/axe";
import { startDashboard } from "../test/dashboard-process";
import { dashboardEnv } from "../cluster/harness/stack";
import { httpsRequest } from "../cluster/https-json";
import {
  adminContext,
  startControlPlanes,
  startHangingListener,
  unreachableServer,
  writeFleetKubeconfig,
} from "../test/fleet";
import { hook, uniqueName } from "../test/e2e/webhooks-helpers";

const TIMEOUT_MS = 6_000;

test("the fleet lists every context, says why one fails, and highlights drift", async ({
  page,
  stack,
  kube,
  cleanup,
}) => {
  test.setTimeout(240_000);
  const extra = await startControlPlanes(1);
  cleanup.defer(() => extra.stop());
  const second = extra.planes[0];
  if (!second) throw new Error("no second control plane");
  const hanging = await startHangingListener();
  cleanup.defer(() => hanging.close());
  const dir = mkdtempSync(path.join(stack.dir, "fleet-e2e-"));
  const kubeconfig = writeFleetKubeconfig(
    path.join(dir, "kubeconfig"),
    [
      adminContext("local-a", stack),
      adminContext("local-b", second),
      { ...adminContext("nobody-home", stack), server: await unreachableServer() },
      { ...adminContext("hanging", stack), server: hanging.server },
    ],
    "local-a",
  );

  // The same configuration in both clusters, fail-closed in one and fail-open in the other.
  const name = uniqueName("e2e-fleet");
  const config = (failurePolicy: string) => ({
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name },
    webhooks: [hook(`a.${name}.example.com`, { failurePolicy })],
  });
  const path_ = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
  expect((await kube.request("POST", path_, config("Fail"))).status).toBe(201);
  cleanup.defer(() => kube.request("DELETE", `${path_}/${name}`));
  const ca = readFileSync(second.caFile);
  const inSecond = (method: string, p: string, body?: unknown, contentType?: string) =>
    httpsRequest(`${second.server}${p}`, {
      method,
      body,
      ca,
      token: second.tokens.admin,
      contentType,
    });
  expect((await inSecond("POST", path_, config("Ignore"))).status).toBe(201);
  // Only in the second cluster: what tells its tab from the first's.
  const onlyB = `${name}-only-b`;
  expect(
    (
      await inSecond("POST", path_, {
        ...config("Ignore"),
        metadata: { name: onlyB },
        webhooks: [hook(`a.${onlyB}.example.com`)],
      })
    ).status,
  ).toBe(201);

  const base = dashboardEnv(stack);
  delete base.PORTCULLIS_OTLP_LISTEN;
  delete base.PORTCULLIS_AUDIT_TLS_LISTEN;
  const dashboard = await startDashboard({
    ...base,
    KUBECONFIG: kubeconfig,
    PORTCULLIS_DEFAULT_CONTEXT: "local-a",
    PORTCULLIS_DATA_DIR: path.join(dir, "data"),
    PORTCULLIS_FLEET_TIMEOUT_MS: String(TIMEOUT_MS),
  });
  cleanup.defer(() => dashboard.stop());

  await page.goto(`${dashboard.url}fleet`);
  await expect(page.getByRole("link", { name: "Fleet" })).toHaveAttribute("aria-current", "page");
  const rows = page.getByTestId("fleet-row");
  // Every context is a row from the start, whatever its cluster does.
  await expect(rows).toHaveCount(4);
  const row = (cluster: string) =>
    page.locator(`[data-testid="fleet-row"][data-cluster="${cluster}"]`);
  await expect(row("local-a").getByTestId("fleet-version")).toHaveText(/^v1\.37\./);
  await expect(row("local-b").getByTestId("fleet-version")).toHaveText(/^v1\.37\./);
  // Its lint was checked as its own minor, named beside the counts.
  await expect(row("local-a").getByTestId("fleet-lint-minor")).toHaveText("as 1.37");
  await expect(row("nobody-home").getByTestId("fleet-row-error")).toContainText("503 Unreachable");
  await expect(row("nobody-home").getByTestId("fleet-row-error")).toContainText("ECONNREFUSED");
  // The hanging cluster is still being read while the others are shown.
  await expect(row("hanging")).toHaveAttribute("data-state", "reading");
  await expect(row("hanging").getByTestId("fleet-row-error")).toContainText(
    `did not answer within ${TIMEOUT_MS} ms`,
    { timeout: TIMEOUT_MS + 5_000 },
  );
  await expect(row("hanging").getByTestId("fleet-row-error")).toContainText("no answer");

  // Drift: the failurePolicy differs, highlighted; the rest of the object is hidden until asked.
  const field = page.locator(
    `[data-testid="fleet-drift-field"][data-field="a.${name}.example.com.failurePolicy"]`,
  );
  await expect(field).toHaveAttribute("data-differs", "true");
  await expect(field.locator("td.drift-differs")).toHaveCount(2);
  await expect(field).toContainText('"Fail"');
  await expect(field).toContainText('"Ignore"');
  const rules = page.locator(
    `[data-testid="fleet-drift-field"][data-field="a.${name}.example.com.rules"]`,
  );
  await expect(rules).toHaveCount(0);
  await page.getByTestId("fleet-only-differs").uncheck();
  await expect(rules).toHaveAttribute("data-differs", "false");
  await page.getByTestId("fleet-only-differs").check();

  // Live: the second cluster made fail-closed too; the difference goes away.
  await inSecond(
    "PATCH",
    `${path_}/${name}`,
    [{ op: "replace", path: "/webhooks/0/failurePolicy", value: "Fail" }],
    "application/json-patch+json",
  );
  await expect(field).toHaveCount(0, { timeout: 2_000 });

  expect(await serious(page)).toEqual([]);
  await page.screenshot({ path: "e2e/artifacts/fleet.png", fullPage: true });

  // A row opens its cluster in a tab of its own context.
  const [tab] = await Promise.all([
    page.context().waitForEvent("page"),
    row("local-b").getByTestId("fleet-open").click(),
  ]);
  await tab.waitForLoadState();
  expect(new URL(tab.url()).pathname).toBe("/webhooks");
  await expect(tab.getByRole("combobox", { name: /context/i })).toHaveValue("local-b");
  await expect(tab.getByText(`a.${onlyB}.example.com`).first()).toBeVisible();
  // The tab it was opened from keeps its own context.
  await page.goto(`${dashboard.url}webhooks?q=${name}`);
  await expect(page.getByRole("combobox", { name: /context/i })).toHaveValue("local-a");
  await expect(page.getByText(`a.${name}.example.com`).first()).toBeVisible();
  await expect(page.getByText(`a.${onlyB}.example.com`)).toHaveCount(0);
});
