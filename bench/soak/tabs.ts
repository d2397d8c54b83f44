/**
 * The soak's real browser tabs: Chromium (Debian's, as the e2e tests run it) with one page each
 * of a replica's live pages, signed in with a shared-mode session. Each page's live mark (`.live`,
 * components/live/live-indicator.tsx: `live`, `connecting`, `reconnecting`, or `stale` shown as
 * "not current") is recorded by the page itself, every change with its time, from before the
 * first paint; a marker set on the document once it is live tells a page that recovered by itself
 * from one that was loaded again.
 */
import { chromium, type Browser, type Page } from "@playwright/test";
import { CHROMIUM_ARGS } from "../../scripts/prerequisites";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** What each tab's document records (set up by the init script below). */
interface TabWindow {
  __soakLive?: Array<{ s: string; t: number }>;
  __soakDoc?: string;
}

/**
 * Runs in every document before its own scripts: records each change of the live mark. A string,
 * not a function: the TypeScript loader would name the function's inner arrows with a helper the
 * page does not have.
 */
const RECORD_LIVE_MARK = `(() => {
  const changes = [];
  window.__soakLive = changes;
  const read = () => {
    const el = document.querySelector(".live");
    const s = el ? el.getAttribute("data-state") || "none" : "none";
    if (changes.length === 0 || changes[changes.length - 1].s !== s) changes.push({ s, t: Date.now() });
  };
  new MutationObserver(read).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["data-state"],
  });
})();`;

export interface TabOutcome {
  path: string;
  /** The states other than `live` the mark showed from the fault's start. */
  notLive: string[];
  /** Seconds from the dependency being back until the mark said `live` again (0: it never left). */
  recoveredS: number | undefined;
  /** Seconds the mark was not `live`, from its first change away to its return. */
  notLiveS: number;
  /** The same document as before the fault: it was never loaded again. */
  sameDocument: boolean;
}

/** The session cookie as the sign-in sets it: `__Host-`, so Secure, no domain, the path `/`. */
function cookieOf(cookie: string, baseUrl: string) {
  const eq = cookie.indexOf("=");
  return {
    name: cookie.slice(0, eq),
    value: cookie.slice(eq + 1),
    domain: new URL(baseUrl).hostname,
    path: "/",
    secure: true,
    httpOnly: true,
    sameSite: "Strict" as const,
  };
}

export class Tabs {
  private constructor(
    private readonly browser: Browser,
    private readonly pages: Array<{ path: string; page: Page; doc: string }>,
  ) {}

  /** Opens each of `paths` in a tab of its own, signed in with `cookie` ("name=value"). */
  static async open(baseUrl: string, cookie: string, paths: string[]): Promise<Tabs> {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        ...CHROMIUM_ARGS,
        // Five tabs side by side, all "visible": none is throttled as a background tab.
        "--disable-background-timer-throttling",
        "--disable-renderer-backgrounding",
        "--disable-backgrounding-occluded-windows",
      ],
    });
    try {
      // A browser context (a profile) each: one profile opens at most 6 connections to a host
      // over HTTP/1.1, and five pages' event streams (each page's live stream and the
      // break-glass banner's) need more — the fifth tab then waits, "reconnecting", for a free
      // connection, as five tabs of one browser on one dashboard do.
      const pages: Array<{ path: string; page: Page; doc: string }> = [];
      for (const [i, p] of paths.entries()) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        await context.addCookies([cookieOf(cookie, baseUrl)]);
        await context.addInitScript({ content: RECORD_LIVE_MARK });
        const page = await context.newPage();
        await page.goto(`${baseUrl}${p}`, { waitUntil: "domcontentloaded", timeout: 60_000 });
        const live = await page
          .waitForFunction(
            () => document.querySelector(".live")?.getAttribute("data-state") === "live",
            undefined,
            { timeout: 60_000 },
          )
          .then(() => true)
          .catch(() => false);
        if (!live) {
          const mark = await page
            .locator(".live")
            .first()
            .textContent({ timeout: 1000 })
            .catch(() => "no live mark");
          throw new Error(`${p} was not live in 60 s (its mark: ${mark})`);
        }
        const doc = `soak-tab-${i}-${Date.now()}`;
        await page.evaluate((d) => {
          (window as unknown as TabWindow).__soakDoc = d;
        }, doc);
        pages.push({ path: p, page, doc });
      }
      return new Tabs(browser, pages);
    } catch (e) {
      await browser.close().catch(() => undefined);
      throw e;
    }
  }

  /**
   * Waits (up to `timeoutMs`) until every tab's mark says `live`, then reads what each showed
   * since `since` and how long after `recovered` it was live again.
   */
  async outcome(since: number, recovered: number, timeoutMs: number): Promise<TabOutcome[]> {
    return Promise.all(
      this.pages.map(async ({ path, page, doc }) => {
        const live = await page
          .waitForFunction(
            () => document.querySelector(".live")?.getAttribute("data-state") === "live",
            undefined,
            { timeout: timeoutMs, polling: 100 },
          )
          .then(() => true)
          .catch(() => false);
        const seen = await page
          .evaluate(() => {
            const w = window as unknown as TabWindow;
            return { changes: w.__soakLive ?? [], doc: w.__soakDoc };
          })
          .catch(() => ({ changes: [] as Array<{ s: string; t: number }>, doc: undefined }));
        // The state at `since` and every change after it.
        const before = seen.changes.filter((c) => c.t < since).pop();
        const window_ = [...(before ? [before] : []), ...seen.changes.filter((c) => c.t >= since)];
        const notLive = [...new Set(window_.filter((c) => c.s !== "live").map((c) => c.s))];
        const lastDown = window_.map((c) => c.s !== "live").lastIndexOf(true);
        const back = window_.slice(lastDown + 1).find((c) => c.s === "live");
        const firstDown = window_.find((c) => c.s !== "live");
        return {
          path,
          notLive,
          recoveredS: !live
            ? undefined
            : lastDown === -1
              ? 0
              : Math.max(0, ((back?.t ?? Date.now()) - recovered) / 1000),
          notLiveS: firstDown && back ? (back.t - Math.max(firstDown.t, since)) / 1000 : 0,
          sameDocument: seen.doc === doc,
        };
      }),
    );
  }

  async close(): Promise<void> {
    await this.browser.close().catch(() => undefined);
  }
}
