/**
 * Every page beside the webhook pages (see webhooks-keyboard-narrow.spec.ts) on a phone-sized
 * window (390x844): no page is wider than the window, so no control, link or column sits off to
 * the side where an admin on a phone cannot reach it.
 */
import { test, expect } from "./fixtures";

test.describe("Pages on a phone (390x844)", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  for (const path of [
    "/policies",
    "/policies/new",
    "/namespaces",
    "/deadlocks",
    "/health",
    "/predict",
    "/decisions",
    "/initializers",
  ]) {
    test(`${path} is no wider than the window`, async ({ page }) => {
      await page.goto(path);
      await expect(page.locator("main h1").first()).toBeVisible();
      await expect(page.locator('[aria-busy="true"]')).toHaveCount(0, { timeout: 15_000 });
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `${path} is ${width}px wide in a 390px window`).toBeLessThanOrEqual(390);
    });
  }

  test("/predict: every operation is on screen and can be chosen", async ({ page }) => {
    await page.goto("/predict");
    const ops = page.getByRole("radiogroup", { name: "Operation" }).getByRole("radio");
    await expect(ops).toHaveCount(4);
    for (const op of await ops.all()) {
      const box = await op.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= 390, `${await op.textContent()}`).toBe(true);
    }
    await page.getByRole("radio", { name: "CONNECT" }).click();
    await expect(page.getByRole("radio", { name: "CONNECT" })).toHaveAttribute(
      "aria-checked",
      "true",
    );
  });
});
