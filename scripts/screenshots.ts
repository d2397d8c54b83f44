/**
 * `npm run screenshots`: starts the demo, lets its traffic run, and saves a screenshot of every
 * page (docs/screenshots/<name>.png, the list in cluster/harness/screenshot-pages.ts) from
 * Debian's Chromium, each taken once the page shows its data. The sign-in pages come from a
 * shared-mode dashboard started beside the demo's on the same cluster, last (it adds a namespace
 * of its own to the cluster).
 */
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { chromium, type Page } from "@playwright/test";
import { LOCAL_CLUSTER_INFO } from "../cluster/launcher";
import { startDemo } from "../cluster/harness/demo-process";
import { SCREENSHOT_PAGES, type ScreenshotPage } from "../cluster/harness/screenshot-pages";
import { startSharedDashboard, type SharedDashboard } from "../cluster/harness/shared-dashboard";
import type { StackInfo } from "../cluster/harness/stack";

const OUT = path.resolve(import.meta.dirname, "../docs/screenshots");
mkdirSync(OUT, { recursive: true });
const log = (l: string) => process.stderr.write(`screenshots: ${l}\n`);

async function shoot(page: Page, base: string, p: ScreenshotPage): Promise<void> {
  await page.goto(`${base}${p.path}`);
  await page.getByRole("main").getByText(p.shows).first().waitFor({ timeout: 30_000 });
  // A live page is taken once its watch stream is up, not while it still says "connecting".
  await page
    .waitForFunction(() => !document.querySelector('.live[data-state$="connecting"]'), undefined, {
      timeout: 15_000,
    })
    .catch(() => log(`${p.name}: its live state still connecting, taken anyway`));
  await page.waitForTimeout(800); // let charts, late rows and access reviews settle
  await page.screenshot({ path: path.join(OUT, `${p.name}.png`) });
  log(`docs/screenshots/${p.name}.png`);
}

const demo = await startDemo();
log(`demo ready at ${demo.url} in ${demo.readySeconds} s`);
let shared: SharedDashboard | undefined;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
try {
  // Some traffic first, so the decision feed, its chart and the health rates have history.
  await new Promise((r) => setTimeout(r, Number(process.env.SCREENSHOT_WARMUP_S ?? 45) * 1000));
  const viewport = { width: 1360, height: 860 };
  const page = await browser.newPage({ viewport });
  for (const p of SCREENSHOT_PAGES.filter((x) => x.mode === "local"))
    await shoot(page, demo.url, p);

  const cluster = JSON.parse(readFileSync(LOCAL_CLUSTER_INFO, "utf8")) as StackInfo;
  shared = await startSharedDashboard(cluster);
  const signIn = await browser.newPage({ viewport });
  // The issuer's redirect target shows its progress while the dashboard completes the sign-in:
  // that request is held, so the page is taken as a user sees it then.
  await signIn.route("**/api/session/oidc/callback", () => undefined);
  for (const p of SCREENSHOT_PAGES.filter((x) => x.mode === "shared"))
    await shoot(signIn, shared.url, p);
} finally {
  await browser.close();
  await shared?.stop();
  await demo.stop("SIGINT");
}
