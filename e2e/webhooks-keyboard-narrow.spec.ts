/**
 * The webhook pages from the keyboard (the template menu and the delete confirmation open, close
 * on Escape and give focus back) and on a phone-sized window (390x844): no page is wider than the
 * window, so no link, button or column sits off to the side.
 */
import type { Locator, Page } from "@playwright/test";
import { test, expect } from "../test/e2e/fixtures";
import {
  createConfig,
  deleteConfig,
  getConfig,
  hook,
  uniqueName,
} from "../test/e2e/webhooks-helpers";

const focused = (page: Page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    return a && a !== document.body
      ? `${a.tagName} ${(a.getAttribute("aria-label") ?? a.textContent ?? "").trim()}`
      : "BODY";
  });

test.describe("Webhook pages from the keyboard", () => {
  test("the template menu closes on Escape (focus back on it) and on a click outside", async ({
    page,
  }) => {
    await page.goto("/webhooks");
    const menu = page.locator("details.menu");
    const summary = menu.locator("summary");
    await summary.focus();
    await page.keyboard.press("Enter");
    await expect(menu).toHaveJSProperty("open", true);
    await page.keyboard.press("Tab");
    expect(await focused(page)).toMatch(/^A /);
    await page.keyboard.press("Escape");
    await expect(menu).toHaveJSProperty("open", false);
    expect(await focused(page)).toBe("SUMMARY New from template");

    await summary.click();
    await expect(menu).toHaveJSProperty("open", true);
    await page.locator("main h1").click();
    await expect(menu).toHaveJSProperty("open", false);
  });

  test("the delete confirmation takes focus, Escape cancels it and focus returns to Delete…", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-kbd-delete");
    cleanup.defer(async () => {
      await deleteConfig(kube, "validatingwebhookconfigurations", name);
    });
    await createConfig(kube, "validatingwebhookconfigurations", name, [
      hook(`a.${name}.example.com`),
    ]);
    await page.goto(`/webhooks/validatingwebhookconfigurations/${name}`);
    const open = page.getByRole("button", { name: "Delete…" });
    await expect(open).toBeEnabled();
    await open.focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("dialog", { name: "Confirm delete" })).toBeVisible();
    expect(await focused(page)).toBe("INPUT Type the name to confirm");
    await page.keyboard.type("partial");
    await page.keyboard.press("Escape");
    await expect(page.getByRole("dialog", { name: "Confirm delete" })).toHaveCount(0);
    expect(await focused(page)).toBe("BUTTON Delete…");

    // Reopened, it starts empty; Cancel also returns focus.
    await page.keyboard.press("Enter");
    await expect(page.getByLabel("Type the name to confirm")).toHaveValue("");
    await page.getByRole("button", { name: "Cancel" }).focus();
    await page.keyboard.press("Enter");
    expect(await focused(page)).toBe("BUTTON Delete…");
    expect(await getConfig(kube, "validatingwebhookconfigurations", name)).toBeDefined();
  });
});

test.describe("The YAML editor from the keyboard", () => {
  test("Tab indents inside it; Escape then Tab or Shift+Tab leaves it", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-kbd-editor");
    cleanup.defer(async () => {
      await deleteConfig(kube, "validatingwebhookconfigurations", name);
    });
    await createConfig(kube, "validatingwebhookconfigurations", name, [
      hook(`a.${name}.example.com`),
    ]);
    await page.goto(`/webhooks/validatingwebhookconfigurations/${name}/edit`);
    const textarea = page.getByTestId("yaml-editor").locator("textarea").first();
    await expect(textarea).toBeAttached({ timeout: 15_000 });
    const inEditor = () =>
      page.evaluate(() => !!document.activeElement?.closest('[data-testid="yaml-editor"]'));
    await textarea.focus();
    await page.keyboard.press("Tab");
    expect(await inEditor()).toBe(true);

    await page.keyboard.press("Escape");
    await page.keyboard.press("Tab");
    expect(await inEditor()).toBe(false);
    expect(await focused(page)).not.toBe("BODY");

    await textarea.focus();
    await page.keyboard.press("Escape");
    await page.keyboard.press("Shift+Tab");
    expect(await inEditor()).toBe(false);
    expect(await focused(page)).not.toBe("BODY");
    // Said where a sighted keyboard user sees it.
    await expect(page.getByText("Esc then Tab leaves the editor")).toBeVisible();
  });
});

test.describe("The editor's view tabs from the keyboard (WAI-ARIA tabs)", () => {
  test("arrows wrap, Home and End jump, only the selected tab is in the Tab order and each tab controls its panel", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-kbd-tabs");
    cleanup.defer(async () => {
      await deleteConfig(kube, "validatingwebhookconfigurations", name);
    });
    await createConfig(kube, "validatingwebhookconfigurations", name, [
      hook(`a.${name}.example.com`),
    ]);
    await page.goto(`/webhooks/validatingwebhookconfigurations/${name}/edit`);
    const list = page.getByRole("tablist", { name: "Editor view" });
    const tabs = list.getByRole("tab");
    await expect(tabs).toHaveCount(3);
    const [yaml, form, diff] = [tabs.nth(0), tabs.nth(1), tabs.nth(2)];
    await expect(page.getByTestId("yaml-editor").locator("textarea").first()).toBeAttached({
      timeout: 15_000,
    });
    // The selected tab, its panel shown and named by it; the other tabs out of the Tab order.
    // Each tab as "<name> selected|-, tabindex, its panel's role, labelled by it?, shown?".
    const tabStates = () =>
      list.evaluate((l) =>
        Array.from(l.querySelectorAll('[role="tab"]')).map((t) => {
          const panel = document.getElementById(t.getAttribute("aria-controls") ?? "");
          const shown = !!panel && !panel.hidden && panel.getClientRects().length > 0;
          return [
            t.textContent,
            t.getAttribute("aria-selected") === "true" ? "selected" : "-",
            t.getAttribute("tabindex"),
            panel?.getAttribute("role") ?? "no panel",
            panel?.getAttribute("aria-labelledby") === t.id ? "labelled" : "unlabelled",
            shown ? "shown" : "hidden",
            document.activeElement === t ? "focused" : "-",
          ].join(" ");
        }),
      );
    const expectSelected = async (selected: Locator) => {
      const on = await selected.textContent();
      const want = ["YAML", "Form", "Diff vs live"].map((n) =>
        n === on
          ? `${n} selected 0 tabpanel labelled shown focused`
          : `${n} - -1 tabpanel labelled hidden -`,
      );
      await expect.poll(tabStates).toEqual(want);
    };

    await yaml.focus();
    await expect(yaml).toHaveAttribute("aria-selected", "true");
    await page.keyboard.press("ArrowRight");
    await expectSelected(form);
    await expect(page.getByRole("tabpanel", { name: "Form" })).toBeVisible();
    await page.keyboard.press("ArrowRight");
    await expectSelected(diff);
    await page.keyboard.press("ArrowRight");
    await expectSelected(yaml);
    await page.keyboard.press("ArrowLeft");
    await expectSelected(diff);
    await page.keyboard.press("Home");
    await expectSelected(yaml);
    await page.keyboard.press("End");
    await expectSelected(diff);

    // Tab leaves the tab list (the other tabs are skipped), Shift+Tab comes back to the
    // selected one.
    await page.keyboard.press("Tab");
    expect(await focused(page)).not.toMatch(/^BUTTON (YAML|Form)$/);
    await page.keyboard.press("Shift+Tab");
    await expect(diff).toBeFocused();
  });
});

test.describe("Webhook list for a screen reader", () => {
  test("the row count is a status message, read out as a filter narrows the list", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-status");
    cleanup.defer(async () => {
      await deleteConfig(kube, "validatingwebhookconfigurations", name);
    });
    await createConfig(kube, "validatingwebhookconfigurations", name, [
      hook(`a.${name}.example.com`),
    ]);
    await page.goto("/webhooks");
    const count = page.getByRole("status").filter({ hasText: /\brows$/ });
    await expect(count).toHaveText(/^[1-9]\d* rows$/);
    await page.getByLabel("Search").fill("no-such-hook-anywhere");
    await expect(count).toHaveText(/^0 of [1-9]\d* rows$/);
  });
});

test.describe("Webhook pages on a phone (390x844)", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("no page is wider than the window; every main link is on screen", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-narrow");
    cleanup.defer(async () => {
      await deleteConfig(kube, "validatingwebhookconfigurations", name);
    });
    await createConfig(kube, "validatingwebhookconfigurations", name, [
      hook(`a-very-long-webhook-name-that-goes-on-and-on.${name}.example.com`),
    ]);
    for (const path of [
      "/",
      "/webhooks",
      "/webhooks/new",
      "/webhooks/order",
      `/webhooks/validatingwebhookconfigurations/${name}`,
    ]) {
      await page.goto(path);
      await expect(page.locator("main h1").first()).toBeVisible();
      await expect(page.locator('[aria-busy="true"]')).toHaveCount(0, { timeout: 15_000 });
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `${path} is ${width}px wide in a 390px window`).toBeLessThanOrEqual(390);
      for (const link of await page
        .getByRole("navigation", { name: "Main" })
        .getByRole("link")
        .all()) {
        const box = await link.boundingBox();
        expect(box && box.x + box.width <= 390, `${path}: ${await link.textContent()}`).toBe(true);
      }
    }
  });
});

test.describe("The editor on a phone (390x844)", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the YAML editor and the problems list stack, each the window's width; the form fits it", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-narrow-edit");
    cleanup.defer(async () => {
      await deleteConfig(kube, "validatingwebhookconfigurations", name);
    });
    await createConfig(kube, "validatingwebhookconfigurations", name, [
      hook(`a.${name}.example.com`),
    ]);
    await page.goto(`/webhooks/validatingwebhookconfigurations/${name}/edit`);
    const editor = page.getByTestId("yaml-editor");
    await expect(editor.locator("textarea").first()).toBeAttached({ timeout: 15_000 });
    const problems = page.getByRole("heading", { name: /^Problems/ });
    await expect(problems).toBeVisible();
    const main = await page.locator("main").boundingBox();
    const box = await editor.boundingBox();
    const list = await page.locator(".problems").boundingBox();
    expect(main && box && list).toBeTruthy();
    if (!main || !box || !list) return;
    // Side by side, the editor got a few pixels; stacked, both take the page's width.
    expect(box.width, "the YAML editor's width").toBeGreaterThan(main.width * 0.8);
    expect(list.width, "the problems list's width").toBeGreaterThan(main.width * 0.8);
    expect(list.y, "the problems list is below the editor").toBeGreaterThanOrEqual(
      box.y + box.height,
    );
    // The editor's keyboard hint reads as a sentence, not a column of letters.
    const hint = await page.getByText("Esc then Tab leaves the editor").boundingBox();
    expect(hint && hint.height < 120, "the keyboard hint is a few lines").toBe(true);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);

    // The form view's fields wrap to the window too.
    await page.getByRole("tab", { name: "Form" }).click();
    await expect(page.getByLabel("failurePolicy")).toBeVisible();
    const formWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(formWidth, "the Form view's width").toBeLessThanOrEqual(390);
    const matchPolicy = await page.getByLabel("matchPolicy").boundingBox();
    expect(matchPolicy && matchPolicy.x + matchPolicy.width <= 390, "matchPolicy on screen").toBe(
      true,
    );
  });
});

test.describe("Very long names", () => {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    test(`a 200-character configuration and hook name wrap at ${width}x${height}`, async ({
      page,
      kube,
      cleanup,
    }) => {
      await page.setViewportSize({ width, height });
      const name = `${uniqueName("e2e-long")}.${"a".repeat(60)}.${"b".repeat(60)}.example.com`;
      const hookName = `h.${"c".repeat(60)}.${"d".repeat(60)}.${"e".repeat(60)}.example.com`;
      cleanup.defer(async () => {
        await deleteConfig(kube, "validatingwebhookconfigurations", name);
      });
      await createConfig(kube, "validatingwebhookconfigurations", name, [hook(hookName)]);
      for (const path of [`/webhooks/validatingwebhookconfigurations/${name}`, "/webhooks/order"]) {
        await page.goto(path);
        await expect(page.locator("main h1").first()).toBeVisible();
        await expect(page.getByText(hookName).first()).toBeVisible();
        // Measured once every part has loaded, as the phone-width test above does (the change
        // markers' line, "1 change of <name> marked", came with the history's first record and
        // once made the page 1,197 px wide at 390 px).
        await expect(page.locator('[aria-busy="true"]')).toHaveCount(0, { timeout: 15_000 });
        await expect
          .poll(() => page.evaluate(() => document.documentElement.scrollWidth), {
            message: `${path} fits a ${width}px window`,
          })
          .toBeLessThanOrEqual(width);
      }
      const del = page.getByRole("button", { name: "Delete…" });
      await page.goto(`/webhooks/validatingwebhookconfigurations/${name}`);
      const box = await del.boundingBox();
      expect(box && box.x + box.width <= width, "Delete… is on screen").toBe(true);
    });
  }
});
