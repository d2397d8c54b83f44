/**
 * An open page whose cluster goes away says so, and catches up when it is back. A dashboard of its
 * own reaches the real apiserver through a TCP relay; with the webhook list open, the relay cuts
 * every connection and refuses new ones (the apiserver's network gone): the list keeps what it
 * last saw and its live mark turns to "not current" with the reason. A configuration created
 * meanwhile appears once the network is back, and the mark says live again. Before, the mark
 * stayed "live" while nothing reached the page.
 */
import { test, expect } from "./fixtures";
import { startRelayedDashboard } from "./dashboard-process";
import { createConfig, deleteConfig, hook, uniqueName } from "./webhooks-helpers";

test("an open page says its data is not current while the cluster is unreachable, then catches up", async ({
  page,
  stack,
  kube,
}) => {
  test.setTimeout(120_000);
  const before = uniqueName("e2e-stale-a");
  const during = uniqueName("e2e-stale-b");
  const { dashboard, relay } = await startRelayedDashboard(stack);
  try {
    await createConfig(kube, "validatingwebhookconfigurations", before, [
      hook(`a.${before}.example.com`),
    ]);
    await page.goto(`${dashboard.url}webhooks?q=e2e-stale`);
    const mark = page.locator(".live");
    await expect(mark).toHaveText("live");
    const rowBefore = page.locator(`[data-row-id="ValidatingWebhookConfiguration/${before}/0"]`);
    await expect(rowBefore).toBeVisible();

    relay.cut();
    const stale = page.getByRole("status").filter({ hasText: "not current" });
    await expect(stale).toBeVisible();
    await expect(stale).toContainText("Unreachable");
    await expect(stale).toContainText(
      `cannot reach the apiserver at https://127.0.0.1:${relay.port}`,
    );
    await expect(mark).toHaveAttribute("data-state", "stale");
    // What was last seen stays on the page.
    await expect(rowBefore).toBeVisible();
    await page.screenshot({ path: "e2e/artifacts/webhooks-not-current.png" });

    await createConfig(kube, "validatingwebhookconfigurations", during, [
      hook(`a.${during}.example.com`),
    ]);
    relay.restore();
    // The hub retries with backoff (1 s, 2 s, 4 s … while it keeps failing).
    await expect(mark).toHaveText("live", { timeout: 30_000 });
    await expect(
      page.locator(`[data-row-id="ValidatingWebhookConfiguration/${during}/0"]`),
    ).toBeVisible();
    await expect(rowBefore).toBeVisible();
  } finally {
    dashboard.stop();
    await relay.close();
    await deleteConfig(kube, "validatingwebhookconfigurations", before);
    await deleteConfig(kube, "validatingwebhookconfigurations", during);
  }
});
