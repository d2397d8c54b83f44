import type { Locator } from "@playwright/test";
import { test, expect } from "../test/e2e/fixtures";
import {
  createConfig,
  deleteConfig,
  getConfig,
  hook,
  threeHookConfig,
  uniqueName,
} from "../test/e2e/webhooks-helpers";
import { dragOnto, orderPageIsCurrent, startDrag } from "../test/e2e/order-drag";

const M = "mutatingwebhookconfigurations" as const;
const V = "validatingwebhookconfigurations" as const;

const names = (c: Awaited<ReturnType<typeof getConfig>>) => c?.webhooks?.map((w) => w.name);

/**
 * The hooks of one configuration's list as the page shows them, top to bottom, each numbered from
 * the list's own first place (the numbers shown continue from the configurations before it, which
 * other tests may create): "1. <hook>", "2. <hook>", …
 */
async function hookOrder(config: Locator): Promise<string[]> {
  const shown = await config
    .getByRole("list", { name: /^Hooks of / })
    .getByRole("listitem")
    .evaluateAll((lis) =>
      lis.map((li) => ({
        idx: Number(li.querySelector(".idx")?.textContent),
        hook: li.getAttribute("data-testid")?.replace(/^hook-item-/, "") ?? "",
      })),
    );
  const first = shown[0]?.idx ?? 1;
  return shown.map((s) => `${s.idx - first + 1}. ${s.hook}`);
}

test.describe("Call order", () => {
  test("reorders hooks by keyboard and by drag, each saved after a diff", async ({
    page,
    kube,
    cleanup,
  }) => {
    const { name, a, b, c } = await threeHookConfig(kube, cleanup, "e2e-order", [
      {},
      {},
      { reinvocationPolicy: "IfNeeded" },
    ]);
    await page.goto("/webhooks/order");
    const config = page.getByTestId(`config-${name}`);
    await expect(config).toBeVisible();

    // Keyboard: focus b, Alt+Up. The handles are disabled until the access review says the
    // user may update, and a disabled button cannot take focus: wait for it.
    const handle = config.getByRole("button", {
      name: new RegExp(`^${b.replace(/\./g, "\\.")}, position 2`),
    });
    await expect(handle).toBeEnabled();
    await handle.focus();
    await expect(handle).toBeFocused();
    await page.keyboard.press("Alt+ArrowUp");
    const diff = config.getByLabel(`New order of ${name}`);
    await expect(diff).toBeVisible();
    await expect(diff.locator("li.changed")).toHaveCount(2);
    expect(names(await getConfig(kube, M, name))).toEqual([a, b, c]);
    await page.screenshot({ path: "e2e/artifacts/webhook-order.png", fullPage: true });
    await diff.getByRole("button", { name: `Save order of ${name}` }).click();
    await expect(diff).toHaveCount(0);
    await expect.poll(async () => names(await getConfig(kube, M, name))).toEqual([b, a, c]);

    // Drag: c onto the first place. The order shown is read from this configuration's own list
    // (its numbers continue from the configurations before it, which other tests may create).
    await expect.poll(() => hookOrder(config)).toEqual([`1. ${b}`, `2. ${a}`, `3. ${c}`]);
    await orderPageIsCurrent(page, kube);
    await config.scrollIntoViewIfNeeded();
    await startDrag(page, config.getByTestId(`hook-item-${c}`));
    await dragOnto(page, config.getByTestId(`hook-item-${b}`));
    await expect(config.getByTestId(`hook-item-${b}`)).toHaveAttribute("data-drag", "target");
    await page.mouse.up();
    await config.getByRole("button", { name: `Save order of ${name}` }).click();
    await expect.poll(async () => names(await getConfig(kube, M, name))).toEqual([c, b, a]);
    await expect.poll(() => hookOrder(config)).toEqual([`1. ${c}`, `2. ${b}`, `3. ${a}`]);
    // The reinvocation round names the IfNeeded hook, under this configuration.
    await expect(
      page
        .getByRole("region", { name: "Reinvocation round" })
        .getByRole("listitem")
        .filter({ hasText: `${name} / ${c}` }),
    ).toHaveCount(1);
  });

  test("safe rename moves a configuration in the order; a failing rename rolls back", async ({
    page,
    kube,
    cleanup,
  }) => {
    const id = uniqueName("x").slice(2);
    const early = `e2e-ren-b-${id}`;
    const late = `e2e-ren-c-${id}`;
    const target = `e2e-ren-a-${id}`;
    await createConfig(kube, V, early, [hook(`h.${early}.example.com`)]);
    const lateStored = await createConfig(kube, V, late, [
      hook(`h.${late}.example.com`, { timeoutSeconds: 4 }),
    ]);
    cleanup.defer(async () => {
      for (const n of [early, late, target]) await deleteConfig(kube, V, n);
    });
    await page.goto("/webhooks/order");
    const before = Number(await page.getByTestId(`config-${late}`).getAttribute("data-position"));
    const beforeEarly = Number(
      await page.getByTestId(`config-${early}`).getAttribute("data-position"),
    );
    expect(before).toBeGreaterThan(beforeEarly);

    // Renaming onto an existing name fails at create; nothing changes.
    await page.getByRole("button", { name: `Rename ${late}` }).click();
    const form = page.getByRole("group", { name: `Rename ${late}` });
    await form.getByLabel("New name").fill(early);
    await expect(form).toContainText("exists already");
    await form.getByRole("button", { name: "Rename safely" }).click();
    await expect(page.getByRole("status", { name: "Rename result" })).toContainText("failed");
    expect((await getConfig(kube, V, late))?.metadata.uid).toBe(lateStored.metadata.uid);

    await form.getByLabel("New name").fill(target);
    await expect(form).toContainText(`moves from position ${before}`);
    await form.getByRole("button", { name: "Rename safely" }).click();
    await expect(page.getByRole("status", { name: "Rename result" })).toContainText(
      `Renamed ${late} to ${target}`,
    );
    await expect(page.getByTestId(`config-${target}`)).toBeVisible();
    await expect(page.getByTestId(`config-${late}`)).toHaveCount(0);
    const after = Number(await page.getByTestId(`config-${target}`).getAttribute("data-position"));
    const afterEarly = Number(
      await page.getByTestId(`config-${early}`).getAttribute("data-position"),
    );
    expect(after).toBeLessThan(afterEarly);

    expect(await getConfig(kube, V, late)).toBeUndefined();
    const renamed = await getConfig(kube, V, target);
    expect(renamed?.webhooks).toEqual(lateStored.webhooks);
  });

  test("the order is shown with what runs outside the API, never pushed down by it later", async ({
    page,
  }) => {
    // The notice of hooks outside the API sits above the stages: were it painted after them, the
    // lists would move down under a pointer about to drag. Its answer is held here (the request
    // itself goes to the dashboard once let go) while every other read of the page answers.
    let letGo = () => {};
    const held = new Promise<void>((resolve) => (letGo = resolve));
    let asked = () => {};
    const wasAsked = new Promise<void>((resolve) => (asked = resolve));
    await page.route("**/api/outside-api**", async (route) => {
      asked();
      await held;
      await route.continue();
    });
    const answered = (path: string) =>
      page.waitForResponse((r) => new URL(r.url()).pathname.endsWith(path) && r.ok());
    const reads = Promise.all([
      answered(`/${M}`),
      answered(`/${V}`),
      answered("/api/admission-manifests"),
      answered("/api/webhooks/access"),
    ]);
    await page.goto("/webhooks/order");
    await wasAsked;
    await reads;
    // Two frames after the last of them: time for React to paint what it was given.
    await page.evaluate(
      () =>
        new Promise((resolve) =>
          requestAnimationFrame(() => requestAnimationFrame(() => resolve(undefined))),
        ),
    );
    await expect(page.getByText("Reading the cluster…")).toBeVisible();
    await expect(page.getByRole("region", { name: "1. Mutating webhooks — serial" })).toHaveCount(
      0,
    );
    letGo();
    await expect(page.getByRole("region", { name: "1. Mutating webhooks — serial" })).toBeVisible();
  });
});
