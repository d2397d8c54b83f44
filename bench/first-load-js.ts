/**
 * First-load JavaScript of a page, as Chromium really fetches it: shared by the list-page
 * benchmarks (webhooks, policies).
 */
import { gzipSync } from "node:zlib";
import type { Browser } from "@playwright/test";

export interface FirstLoadJs {
  /** Gzipped kB of the scripts the page needs to load. */
  firstKb: number;
  /** Gzipped kB of scripts deferred on purpose (requested after load, not named by the HTML). */
  lazyKb: number;
  /** 1 when Monaco is in the first load. */
  monaco: number;
}

/** Measures the page at `url` in a fresh browser context. */
export async function firstLoadJs(browser: Browser, url: string): Promise<FirstLoadJs> {
  // Every script Chromium actually fetches for the page (so not the
  // `noModule` polyfill a modern browser skips), until the load event and network idle, each
  // gzipped at level 6 as a server would. A script counts as lazy only when the HTML does not
  // name it and it was requested after the load event, i.e. deferred on purpose.
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const bodies = new Map<string, Buffer>();
  const pending: Array<Promise<void>> = [];
  page.on("response", (r) => {
    if (r.request().resourceType() !== "script") return;
    const p = new URL(r.url()).pathname;
    pending.push(
      r.body().then(
        (b) => void bodies.set(p, b),
        () => undefined, // fetched again below
      ),
    );
  });
  const nav = await page.goto(url, { waitUntil: "load" });
  await page.waitForLoadState("networkidle");
  // What is deferred on purpose starts after load once the browser is idle: give it time.
  await page.waitForTimeout(1_500);
  await page.waitForLoadState("networkidle");
  await Promise.all(pending);
  // The HTML as served (the live DOM also holds the tags of scripts loaded on demand).
  const html = (await nav?.text()) ?? "";
  const timing = await page.evaluate(() => {
    const nav = performance.getEntriesByType("navigation")[0] as
      PerformanceNavigationTiming | undefined;
    return {
      load: nav?.loadEventStart ?? 0,
      scripts: performance
        .getEntriesByType("resource")
        .filter((e) => (e as PerformanceResourceTiming).initiatorType === "script")
        .map((e) => ({ path: new URL(e.name).pathname, start: e.startTime })),
    };
  });
  const started = new Map(timing.scripts.map((s) => [s.path, s.start]));
  let firstKb = 0;
  let lazyKb = 0;
  let monaco = 0;
  for (const [p, b] of bodies) {
    const body =
      b.length > 0
        ? b
        : Buffer.from(await (await fetch(`${new URL(url).origin}${p}`)).arrayBuffer());
    const kb = gzipSync(body, { level: 6 }).length / 1024;
    const named = html.includes(p);
    const deferred = !named && (started.get(p) ?? 0) > timing.load;
    if (deferred) lazyKb += kb;
    else {
      firstKb += kb;
      if (/MonacoEnvironment|monaco-editor|vs\/editor\/editor/.test(body.toString("utf8")))
        monaco = 1;
    }
  }
  await ctx.close();
  return { firstKb, lazyKb, monaco };
}
