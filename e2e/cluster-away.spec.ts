/**
 * Open pages while the cluster goes away and comes back. A dashboard of its own reaches the real
 * apiserver through a TCP relay, which cuts every connection and refuses new ones (the
 * apiserver's network gone), then lets them through again.
 * - The webhook list keeps what it last saw and its live mark turns to "not current" with the
 *   reason; a configuration created meanwhile appears once the network is back, and the mark says
 *   live again. (Before, the mark stayed "live" while nothing reached the page.)
 * - An edit survives: Apply fails with the reason beside the result, the text stays as typed with
 *   no error marked on it (the document is fine; the cluster did not answer), and Apply stores it
 *   once the cluster is back.
 * - The decision feed, whose reads the apiserver authorises, says it got no answer, and comes
 *   back by itself once the cluster answers (before, it stayed on the error until a reload).
 * - A page opened while the cluster does not answer says so, and fills in by itself once it does
 *   (before, it stayed on the error until a reload).
 */
import { test, expect } from "../test/e2e/fixtures";
import { serious } from "../test/e2e/axe";
import { startRelayedDashboard } from "../test/dashboard-process";
import {
  createConfig,
  deleteConfig,
  editorMarkers,
  editorText,
  getConfig,
  hook,
  setEditorText,
  uniqueName,
} from "../test/e2e/webhooks-helpers";

test("an open page says its data is not current while the cluster is unreachable, then catches up", async ({
  page,
  stack,
  kube,
  cleanup,
}) => {
  test.setTimeout(120_000);
  const before = uniqueName("e2e-stale-a");
  const during = uniqueName("e2e-stale-b");
  const { dashboard, relay } = await startRelayedDashboard(stack);
  cleanup.defer(async () => {
    dashboard.stop();
    await relay.close();
    await deleteConfig(kube, "validatingwebhookconfigurations", before);
    await deleteConfig(kube, "validatingwebhookconfigurations", during);
  });
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
  expect(await serious(page)).toEqual([]);
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
});

test("an edit survives a cluster that does not answer, and is applied once it is back", async ({
  page,
  stack,
  kube,
  cleanup,
}) => {
  test.setTimeout(120_000);
  const R = "validatingwebhookconfigurations";
  const name = uniqueName("e2e-away-edit");
  const { dashboard, relay } = await startRelayedDashboard(stack);
  cleanup.defer(async () => {
    dashboard.stop();
    await relay.close();
    await deleteConfig(kube, R, name);
  });
  await createConfig(kube, R, name, [hook(`a.${name}.example.com`)]);
  await page.goto(`${dashboard.url}webhooks/${R}/${name}/edit`);
  const edited = (await editorText(page, R)).replace("timeoutSeconds: 10", "timeoutSeconds: 7");
  await setEditorText(page, R, edited);
  await expect(page.getByTestId("error-count")).toHaveText("0 errors");

  relay.cut();
  await page.getByRole("button", { name: "Dry run" }).click();
  const result = page.getByRole("region", { name: "Dry run result" });
  await expect(result).toContainText("Dry run: no answer from the apiserver");
  await expect(result).toContainText(
    `cannot reach the apiserver at https://127.0.0.1:${relay.port}`,
  );
  await page.getByRole("button", { name: "Apply" }).click();
  const failed = page.getByRole("alert").filter({ hasText: "Unreachable" }).first();
  await expect(failed).toBeVisible();
  await expect(failed).toContainText("No answer");
  // The document is as typed and nothing is marked on it.
  expect(await editorText(page, R)).toBe(edited);
  expect((await editorMarkers(page, R)).filter((m) => m.owner === "apiserver")).toEqual([]);
  await expect(page.getByTestId("error-count")).toHaveText("0 errors");
  expect(await serious(page)).toEqual([]);
  expect((await getConfig(kube, R, name))?.webhooks?.[0]?.timeoutSeconds).toBe(10);

  relay.restore();
  await expect(async () => {
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page.getByRole("status")).toContainText("Applied", { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  expect((await getConfig(kube, R, name))?.webhooks?.[0]?.timeoutSeconds).toBe(7);
});

test("the decision feed comes back by itself once the cluster answers again", async ({
  page,
  stack,
  cleanup,
}) => {
  test.setTimeout(120_000);
  const { dashboard, relay } = await startRelayedDashboard(stack);
  cleanup.defer(async () => {
    dashboard.stop();
    await relay.close();
  });
  await page.goto(`${dashboard.url}decisions`);
  const mark = page.locator(".live");
  await expect(mark).toHaveText("live");
  relay.cut();
  // Another filter reads the store again, which the apiserver must authorise first.
  await page.getByRole("button", { name: "denied", exact: true }).click();
  const noAnswer = page.getByRole("alert").filter({ hasText: "No answer" });
  await expect(noAnswer).toContainText("Unreachable");
  relay.restore();
  // Asked again with a growing pause (1, 2, 4 … s): no reload needed.
  await expect(noAnswer).toBeHidden({ timeout: 30_000 });
  await expect(mark).toHaveText("live");
  await expect(page).toHaveURL(/outcome=denied/);
});

test("a page opened while the cluster does not answer fills in by itself once it does", async ({
  page,
  stack,
  cleanup,
}) => {
  test.setTimeout(150_000);
  const { dashboard, relay } = await startRelayedDashboard(stack);
  cleanup.defer(async () => {
    dashboard.stop();
    await relay.close();
  });
  for (const path of ["webhooks", "namespaces", "policies"]) {
    relay.cut();
    await page.goto(`${dashboard.url}${path}`);
    const down = page.getByRole("alert").filter({ hasText: "Unreachable" }).first();
    await expect(down, path).toBeVisible();
    await expect(down, path).toContainText("asks again by itself");
    expect(await serious(page), path).toEqual([]);
    relay.restore();
    // Asked again after 2 s, then twice as long each time (lib/queries/no-answer.ts).
    await expect(down, path).toBeHidden({ timeout: 30_000 });
    await expect(page.locator(".live"), path).toHaveText("live");
  }
});

test("a live page opened while the cluster does not answer goes live by itself once it does", async ({
  page,
  stack,
  kube,
  cleanup,
}) => {
  test.setTimeout(150_000);
  const name = uniqueName("e2e-away-order");
  const { dashboard, relay } = await startRelayedDashboard(stack);
  cleanup.defer(async () => {
    dashboard.stop();
    await relay.close();
    await deleteConfig(kube, "validatingwebhookconfigurations", name);
  });
  // The call-order page opens its event stream at once; the dashboard, which has not yet read
  // the cluster's discovery, answers it with an error, and the browser's EventSource gives up
  // for good on an error answer (before, the mark then said "reconnecting" forever and nothing
  // live reached the page after the cluster was back).
  relay.cut();
  await page.goto(`${dashboard.url}webhooks/order`);
  await expect(page.getByRole("alert").filter({ hasText: "Unreachable" }).first()).toBeVisible();
  // Long enough for the stream to have been refused.
  await page.waitForTimeout(3_000);
  relay.restore();
  const mark = page.locator(".live");
  await expect(mark).toHaveText("live", { timeout: 40_000 });
  // Live: a configuration created now appears without a reload.
  await createConfig(kube, "validatingwebhookconfigurations", name, [
    hook(`a.${name}.example.com`),
  ]);
  await expect(page.getByText(`a.${name}.example.com`).first()).toBeVisible();
});

test("open pages go live again by themselves after the dashboard restarted while the cluster did not answer", async ({
  browser,
  stack,
  kube,
  cleanup,
}) => {
  test.setTimeout(180_000);
  const name = uniqueName("e2e-away-restart");
  const { dashboard, relay } = await startRelayedDashboard(stack);
  const context = await browser.newContext();
  cleanup.defer(async () => {
    await context.close();
    dashboard.stop();
    await relay.close();
    await deleteConfig(kube, "validatingwebhookconfigurations", name);
  });
  const hooks = await context.newPage();
  const decisions = await context.newPage();
  await hooks.goto(`${dashboard.url}webhooks?q=e2e-away-restart`);
  await decisions.goto(`${dashboard.url}decisions`);
  for (const p of [hooks, decisions]) await expect(p.locator(".live")).toHaveText("live");

  // The cluster goes away and the dashboard is redeployed meanwhile: the streams end, and the
  // browser's reconnections are answered with errors (the new process cannot reach the cluster
  // to check the collections or the reader's access).
  relay.cut();
  await dashboard.restart();
  for (const p of [hooks, decisions])
    await expect(p.locator(".live")).toHaveText("reconnecting", { timeout: 20_000 });
  // Long enough for the browser to have tried again and been refused.
  await hooks.waitForTimeout(3_000);

  relay.restore();
  for (const p of [hooks, decisions])
    await expect(p.locator(".live")).toHaveText("live", { timeout: 40_000 });
  await createConfig(kube, "validatingwebhookconfigurations", name, [
    hook(`a.${name}.example.com`),
  ]);
  await expect(
    hooks.locator(`[data-row-id="ValidatingWebhookConfiguration/${name}/0"]`),
  ).toBeVisible();
});

test("open pages whose event streams go silent stop saying live, and come back by themselves", async ({
  browser,
  stack,
  kube,
  cleanup,
}) => {
  test.setTimeout(180_000);
  const name = uniqueName("e2e-away-silent");
  const { dashboard, relay } = await startRelayedDashboard(stack);
  const context = await browser.newContext();
  let stopped = false;
  cleanup.defer(async () => {
    if (stopped) process.kill(-(dashboard.pid as number), "SIGCONT");
    await context.close();
    dashboard.stop();
    await relay.close();
    await deleteConfig(kube, "validatingwebhookconfigurations", name);
  });
  // The pages' timers run on a clock the test moves on: the 45 s of silence pass at once.
  await context.clock.install();
  const hooks = await context.newPage();
  const decisions = await context.newPage();
  await hooks.goto(`${dashboard.url}webhooks?q=e2e-away-silent`);
  await decisions.goto(`${dashboard.url}decisions`);
  for (const p of [hooks, decisions]) await expect(p.locator(".live")).toHaveText("live");

  // The dashboard hangs: its connections stay open and nothing arrives on them (as on one
  // that died without closing — a laptop that slept, a proxy that dropped it). Before, the
  // pages went on saying "live" for good over what they last saw.
  process.kill(-(dashboard.pid as number), "SIGSTOP");
  stopped = true;
  // Not yet: a heartbeat's worth of silence is a quiet stream, not a dead one.
  await context.clock.fastForward(20_000);
  for (const p of [hooks, decisions]) await expect(p.locator(".live")).toHaveText("live");
  await context.clock.fastForward(26_000);
  for (const p of [hooks, decisions])
    await expect(p.locator(".live")).toHaveText("reconnecting", { timeout: 20_000 });

  process.kill(-(dashboard.pid as number), "SIGCONT");
  stopped = false;
  for (const p of [hooks, decisions])
    await expect(p.locator(".live")).toHaveText("live", { timeout: 30_000 });
  await createConfig(kube, "validatingwebhookconfigurations", name, [
    hook(`a.${name}.example.com`),
  ]);
  await expect(
    hooks.locator(`[data-row-id="ValidatingWebhookConfiguration/${name}/0"]`),
  ).toBeVisible();
});
