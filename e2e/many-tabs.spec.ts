/**
 * Many live tabs in one browser profile. Chromium gives a host 6 HTTP/1.1 connections per profile,
 * and every live page holds one for its own live stream. The break-glass banner's stream is held
 * by one tab for all of them (lib/queries/share-across-tabs.ts); before, each tab held its own
 * too, so with two long-lived connections a tab the fourth live tab waited for a connection for
 * good: its mark stayed "connecting" and the tabs after it did not load at all.
 */
import type { Page } from "@playwright/test";
import { test, expect } from "../test/e2e/fixtures";

const PAGES = ["/webhooks", "/policies", "/namespaces", "/decisions", "/deadlocks", "/webhooks"];

test("six live tabs in one browser all go live, the banner's stream held by one of them", async ({
  page,
}) => {
  const tabs: Page[] = [page];
  for (let i = 1; i < PAGES.length; i++) tabs.push(await page.context().newPage());
  const bannerStreams = new Set<string>();
  for (const [i, tab] of tabs.entries()) {
    tab.on("request", (r) => {
      if (new URL(r.url()).pathname === "/api/break-glass/stream") bannerStreams.add(`${i}`);
    });
  }
  for (const [i, tab] of tabs.entries()) {
    await tab.goto(PAGES[i] ?? "/");
    await expect(tab.locator(".live").first(), PAGES[i]).toHaveAttribute("data-state", "live");
  }
  // Every page stays live with all of them open, and one tab opened the banner's stream.
  for (const [i, tab] of tabs.entries()) {
    await expect(tab.locator(".live").first(), PAGES[i]).toHaveAttribute("data-state", "live");
  }
  expect([...bannerStreams]).toHaveLength(1);

  // The tab holding it closes: another takes the stream over, and the pages left stay live.
  const holder = Number([...bannerStreams][0]);
  const reopened = tabs
    .filter((_, i) => i !== holder)
    .map((t) =>
      t
        .waitForRequest((r) => new URL(r.url()).pathname === "/api/break-glass/stream")
        .then(() => true),
    );
  const holderTab = tabs[holder];
  if (!holderTab) throw new Error(`no tab ${holder}`);
  await holderTab.close();
  expect(await Promise.any(reopened)).toBe(true);
  for (const [i, tab] of tabs.entries()) {
    if (i === holder) continue;
    await expect(tab.locator(".live").first(), PAGES[i]).toHaveAttribute("data-state", "live");
  }
});
