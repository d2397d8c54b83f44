/**
 * Many live tabs in one browser profile. Chromium gives a host 6 HTTP/1.1 connections per profile,
 * and an open live stream holds one. Before, six live tabs held all six (with the break-glass
 * banner's stream, seven were wanted): the sixth tab's page never loaded, and no page could read
 * anything more. Now the banner's stream is held by one tab for all of them
 * (lib/queries/share-across-tabs.ts), and the pages' streams take one of STREAM_SLOTS slots
 * (lib/queries/stream-slots.ts): the tabs beyond say "waiting", and a hidden tab gives its slot up.
 */
import type { Page } from "@playwright/test";
import { STREAM_SLOTS } from "@/lib/queries/stream-slots";
import { test, expect } from "../test/e2e/fixtures";

const PAGES = ["/webhooks", "/policies", "/namespaces", "/decisions", "/deadlocks", "/webhooks"];

/** The page's live mark. */
const mark = (tab: Page) => tab.locator(".live").first();

/** Tells the page it is hidden, or shown, as switching tabs in a window does. */
async function setHidden(tab: Page, hidden: boolean) {
  await tab.evaluate((h) => {
    Object.defineProperty(document, "visibilityState", {
      configurable: true,
      get: () => (h ? "hidden" : "visible"),
    });
    document.dispatchEvent(new Event("visibilitychange"));
  }, hidden);
}

test("more live tabs than slots in one browser: all load, the others wait, and a slot passes on", async ({
  page,
}) => {
  const tabs: Page[] = [page];
  for (let i = 1; i < PAGES.length; i++) tabs.push(await page.context().newPage());
  const bannerStreams = new Set<number>();
  for (const [i, tab] of tabs.entries()) {
    tab.on("request", (r) => {
      if (new URL(r.url()).pathname === "/api/break-glass/stream") bannerStreams.add(i);
    });
  }
  // Each tab loads and shows its page, the first STREAM_SLOTS live, the rest waiting.
  for (const [i, tab] of tabs.entries()) {
    await tab.goto(PAGES[i] ?? "/");
    await expect(tab.getByRole("main")).toBeVisible();
    await expect(mark(tab), PAGES[i]).toHaveAttribute(
      "data-state",
      i < STREAM_SLOTS ? "live" : "waiting",
    );
  }
  // A waiting tab still reads: its page's own requests find a connection. Waiting tabs take
  // slots in the order they asked.
  const queue = tabs.slice(STREAM_SLOTS);
  const firstWaiting = queue[0];
  if (!firstWaiting) throw new Error("no more tabs than slots");
  const read = await firstWaiting.evaluate(async () => (await fetch("/api/health")).status);
  expect(read).toBe(200);
  expect([...bannerStreams]).toEqual([0]);
  const nextGoesLive = async () => {
    const next = queue.shift();
    if (next) await expect(mark(next)).toHaveAttribute("data-state", "live");
    for (const t of queue) await expect(mark(t)).toHaveAttribute("data-state", "waiting");
  };

  // A live tab goes to the background: the first waiting tab takes its slot.
  const back = tabs[1];
  if (!back) throw new Error("no tab 1");
  await setHidden(back, true);
  await expect(mark(back)).toHaveAttribute("data-state", "background");
  await nextGoesLive();

  // A live tab closes: the next waiting tab goes live. The tab in the background, shown again,
  // waits for a slot.
  await tabs[2]?.close();
  await nextGoesLive();
  await setHidden(back, false);
  queue.push(back);
  await expect(mark(back)).toHaveAttribute("data-state", "waiting");

  // The tab holding the banner's stream (the first to load) closes: another takes the stream
  // over, and its page stream's slot goes to the next tab waiting.
  const reopened = tabs
    .slice(1)
    .filter((t) => !t.isClosed())
    .map((t) =>
      t.waitForRequest((r) => new URL(r.url()).pathname === "/api/break-glass/stream", {
        timeout: 15_000,
      }),
    );
  await page.close();
  await Promise.any(reopened);
  await nextGoesLive();
});
