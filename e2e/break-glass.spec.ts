import { test, expect } from "../test/e2e/fixtures";
import {
  createConfig,
  deleteConfig,
  getConfig,
  hook,
  uniqueName,
} from "../test/e2e/webhooks-helpers";

const V = "validatingwebhookconfigurations" as const;

test.describe("Break-glass", () => {
  test("the banner shows on every page with the time left, and its early revert restores the hook", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-break-glass");
    cleanup.defer(async () => {
      await deleteConfig(kube, V, name);
    });
    await createConfig(kube, V, name, [hook(`a.${name}.example.com`, { failurePolicy: "Fail" })]);

    await page.goto(`/webhooks/${V}/${name}`);
    await page.getByTestId("break-glass-open").click();
    await page.getByTestId("break-glass-reason").fill("backend down, e2e");
    await page.getByTestId("break-glass-submit").click();

    const banner = page.getByTestId("break-glass-banner");
    const episode = banner.getByTestId("break-glass-episode").filter({ hasText: name });
    await expect(episode).toBeVisible();
    await expect(episode).toContainText("failurePolicy Ignore");
    await expect(episode).toContainText("backend down, e2e");
    const left = episode.getByTestId("break-glass-time-left");
    await expect(left).toHaveText(/^(30 min 00 s|29 min \d\d s) left$/);
    // It counts down.
    const first = await left.textContent();
    await expect.poll(() => left.textContent(), { timeout: 5_000 }).not.toBe(first);
    await expect
      .poll(async () => (await getConfig(kube, V, name))?.webhooks?.[0]?.failurePolicy)
      .toBe("Ignore");

    // On another page too.
    await page.goto("/decisions");
    await expect(
      page.getByTestId("break-glass-banner").getByTestId("break-glass-episode").filter({
        hasText: name,
      }),
    ).toBeVisible();

    await page
      .getByTestId("break-glass-banner")
      .getByTestId("break-glass-episode")
      .filter({ hasText: name })
      .getByRole("button", { name: "Revert now" })
      .click();
    await expect(page.getByTestId("break-glass-episode").filter({ hasText: name })).toHaveCount(0);
    await expect
      .poll(async () => (await getConfig(kube, V, name))?.webhooks?.[0]?.failurePolicy)
      .toBe("Fail");
  });

  test("is not offered to a viewer", async ({ page, kube, stack, baseURL, cleanup }) => {
    const name = uniqueName("e2e-break-glass-viewer");
    cleanup.defer(async () => {
      await deleteConfig(kube, V, name);
    });
    await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    await page
      .context()
      .addCookies([
        { name: "portcullis-context", value: stack.contexts.viewer, url: baseURL ?? "" },
      ]);
    await page.goto(`/webhooks/${V}/${name}`);
    await expect(page.getByTestId("break-glass-not-allowed")).toBeVisible();
    await expect(page.getByTestId("break-glass-open")).toHaveCount(0);
  });
});
