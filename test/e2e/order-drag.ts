/**
 * Dragging a hook on the order page with the mouse, the way a person does, each step proven by the
 * page's state rather than waited out or retried. Not Playwright's `dragTo`: it aims at where an
 * element was laid out a moment before, so a live update that moves the lists meanwhile makes it
 * drop beside the hook, or start a drag it does not notice, after which Chromium ignores the mouse
 * for the rest of the page.
 */
import { expect, type Locator, type Page } from "@playwright/test";
import type { Kube } from "./fixtures";
import { GROUP_PATH, type StoredConfig } from "./webhooks-helpers";

const M = "mutatingwebhookconfigurations" as const;
const V = "validatingwebhookconfigurations" as const;

/**
 * Waits until the order page shows every webhook configuration as the apiserver has it (name and
 * resourceVersion): no live update is still to come that would add, remove or change a
 * configuration and move the lists under a pointer that is dragging.
 */
export async function orderPageIsCurrent(page: Page, kube: Kube): Promise<void> {
  const stages = [
    [M, "1. Mutating webhooks — serial"],
    [V, "3. Validating webhooks — one parallel stage"],
  ] as const;
  for (const [resource, stage] of stages) {
    await expect
      .poll(async () => {
        const res = await kube.request("GET", `${GROUP_PATH}/${resource}`);
        const stored = (JSON.parse(res.body) as { items: StoredConfig[] }).items
          .map((c) => `${c.metadata.name}@${c.metadata.resourceVersion}`)
          .sort();
        const shown = await page
          .getByRole("region", { name: stage })
          .locator("[data-testid^='config-']:not([data-static])")
          .evaluateAll((els) =>
            els.map(
              (e) =>
                `${e.getAttribute("data-testid")?.slice("config-".length)}@${e.getAttribute("data-resource-version")}`,
            ),
          );
        return shown.join(" ") === stored.join(" ") ? "current" : `page: ${shown.join(" ")}`;
      })
      .toBe("current");
  }
}

/** The middle of `el` as it is laid out now. */
async function middleOf(el: Locator): Promise<{ x: number; y: number }> {
  const box = await el.boundingBox();
  if (!box) throw new Error("not laid out");
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** The hook item (its test id) under the point, as the browser hit-tests it now. */
function hookAt(page: Page, at: { x: number; y: number }): Promise<string | undefined> {
  return page.evaluate(
    ({ x, y }) =>
      document
        .elementFromPoint(x, y)
        ?.closest("[data-testid^='hook-item-']")
        ?.getAttribute("data-testid") ?? undefined,
    at,
  );
}

/**
 * Presses the mouse on the hook `source` and moves it a few pixels, past the browser's drag
 * threshold, step by step; returns once the page marks the hook as the one dragged (the mouse stays
 * down). Proven by the page's state, not waited out.
 */
export async function startDrag(page: Page, source: Locator): Promise<void> {
  await expect(source).toBeInViewport();
  const from = await middleOf(source);
  await page.mouse.move(from.x, from.y);
  // Pressed where the hook is now: a page that moved since it was measured would drag another.
  expect(await hookAt(page, from)).toBe(await source.getAttribute("data-testid"));
  await page.mouse.down();
  await page.mouse.move(from.x + 12, from.y, { steps: 4 });
  await expect(source).toHaveAttribute("data-drag", "source");
}

/**
 * Moves the dragged hook onto `target`, step by step, and once more within it: the browser only
 * enters an element on the first move over it and fires `dragover` there from the next one on.
 * Returns with the pointer over the target, as the browser hit-tests it.
 */
export async function dragOnto(page: Page, target: Locator): Promise<void> {
  await expect(target).toBeInViewport();
  const to = await middleOf(target);
  await page.mouse.move(to.x, to.y, { steps: 4 });
  await page.mouse.move(to.x + 2, to.y);
  expect(await hookAt(page, { x: to.x + 2, y: to.y })).toBe(
    await target.getAttribute("data-testid"),
  );
}
