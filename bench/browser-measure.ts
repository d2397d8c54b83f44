/**
 * Browser measurements shared by the page benchmarks, in Debian's Chromium:
 * - first paint of an element, timed in the page (a MutationObserver installed before
 *   navigation sees it inserted; the frame that paints it has run when a task queued from its
 *   requestAnimationFrame callback runs), and when Playwright sees it (which also waits for the
 *   main thread, e.g. hydration);
 * - first-load JavaScript: every script Chromium actually fetches for a page (so not the
 *   `noModule` polyfill a modern browser skips) until load and network idle, gzipped at level 6
 *   as a server would, the scripts a page's workers load included. A script counts as lazy only
 *   when the served HTML does not name it and it was requested after the load event, i.e.
 *   deferred on purpose.
 */
import { gzipSync } from "node:zlib";
import type { Browser, BrowserContext, Page } from "@playwright/test";

/** Median of the samples. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

/**
 * Installs, before any navigation of `ctx`, the in-page watch for the first `selector`: its paint
 * time (ms since navigation start) lands in `window.__firstPaint` and as the performance mark
 * `first-paint-of-selector` (for traces).
 */
export async function watchFirstPaint(ctx: BrowserContext, selector: string): Promise<void> {
  await ctx.addInitScript((sel: string) => {
    const w = window as unknown as { __firstPaint?: number };
    new MutationObserver((_, obs) => {
      if (!document.querySelector(sel)) return;
      obs.disconnect();
      requestAnimationFrame(() =>
        setTimeout(() => {
          w.__firstPaint = performance.now();
          performance.mark("first-paint-of-selector");
        }, 0),
      );
    }).observe(document, { childList: true, subtree: true });
  }, selector);
}

/** The paint time `watchFirstPaint` recorded on `page`, once there is one. */
export function paintedAt(page: Page, timeoutMs = 60_000): Promise<number> {
  return page
    .waitForFunction(() => (window as unknown as { __firstPaint?: number }).__firstPaint, {
      timeout: timeoutMs,
    })
    .then((h) => h.jsonValue() as Promise<number>);
}

/** Paint time (ms since navigation start) and Playwright-observed time of the first `selector`. */
export async function firstPaint(
  browser: Browser,
  url: string,
  selector: string,
  timeoutMs = 60_000,
): Promise<{ painted: number; seen: number }> {
  const ctx = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  try {
    await watchFirstPaint(ctx, selector);
    const page = await ctx.newPage();
    await page.goto(url, { waitUntil: "commit" });
    await page.waitForSelector(selector, { timeout: timeoutMs });
    const seen = await page.evaluate(() => performance.now());
    return { painted: await paintedAt(page, timeoutMs), seen };
  } finally {
    await ctx.close();
  }
}

/**
 * Medians of `firstPaint` over `runs` loads after one warm-up load (which primes the server's
 * caches and watches), reported as `<name>` and `<name minus -ms>-observed-ms`.
 */
export async function paintBenches(
  browser: Browser,
  url: string,
  selector: string,
  name: string,
  runs = 3,
  timeoutMs = 60_000,
): Promise<Array<{ bench: string; value: number; unit: string }>> {
  const painted: number[] = [];
  const seen: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const t = await firstPaint(browser, url, selector, timeoutMs);
    if (i > 0) {
      painted.push(t.painted);
      seen.push(t.seen);
    }
  }
  return [
    { bench: name, value: Math.round(median(painted)), unit: "ms" },
    {
      bench: `${name.replace(/-ms$/, "")}-observed-ms`,
      value: Math.round(median(seen)),
      unit: "ms",
    },
  ];
}

/** Gzipped kB of first-load and lazy JavaScript, and which first-load scripts match `markers`. */
export async function firstLoadJs(
  browser: Browser,
  url: string,
  markers: Record<string, RegExp> = {},
): Promise<{ firstKb: number; lazyKb: number; found: Record<string, boolean> }> {
  const origin = new URL(url).origin;
  const ctx = await browser.newContext();
  try {
    const page = await ctx.newPage();
    const bodies = new Map<string, Buffer>();
    const pending: Array<Promise<void>> = [];
    /** Scripts loaded by workers (type "other" here, not in the page's resource timing), by start. */
    const workerStarts = new Map<string, number>();
    page.on("response", (r) => {
      const type = r.request().resourceType();
      const p = new URL(r.url()).pathname;
      if (type === "other" && p.endsWith(".js")) {
        const t = r.request().timing().startTime;
        if (!workerStarts.has(p)) workerStarts.set(p, t);
      } else if (type !== "script") return;
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
        loadEpoch: performance.timeOrigin + (nav?.loadEventStart ?? 0),
        scripts: performance
          .getEntriesByType("resource")
          .filter((e) => (e as PerformanceResourceTiming).initiatorType === "script")
          .map((e) => ({ path: new URL(e.name).pathname, start: e.startTime })),
      };
    });
    const started = new Map(timing.scripts.map((s) => [s.path, s.start]));
    let firstKb = 0;
    let lazyKb = 0;
    const found: Record<string, boolean> = Object.fromEntries(
      Object.keys(markers).map((k) => [k, false]),
    );
    for (const [p, b] of bodies) {
      const body =
        b.length > 0 ? b : Buffer.from(await (await fetch(`${origin}${p}`)).arrayBuffer());
      const kb = gzipSync(body, { level: 6 }).length / 1024;
      const named = html.includes(p);
      const workerStart = started.has(p) ? undefined : workerStarts.get(p);
      const deferred =
        !named &&
        (workerStart !== undefined
          ? workerStart > timing.loadEpoch
          : (started.get(p) ?? 0) > timing.load);
      if (deferred) lazyKb += kb;
      else {
        firstKb += kb;
        const text = body.toString("utf8");
        for (const [k, re] of Object.entries(markers)) if (re.test(text)) found[k] = true;
      }
    }
    return { firstKb, lazyKb, found };
  } finally {
    await ctx.close();
  }
}
