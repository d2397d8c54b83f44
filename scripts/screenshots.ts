/**
 * `npm run screenshots`: starts the demo, lets its traffic run, and saves a screenshot of every
 * page (docs/<name>.png) from Debian's Chromium, each taken once the page shows its data.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromium } from "@playwright/test";
import { startDemo } from "../cluster/harness/demo-process";
import { DEMO_PAGES } from "../cluster/harness/demo-ready";

const DOCS = path.resolve(import.meta.dirname, "../docs/screenshots");
mkdirSync(DOCS, { recursive: true });

const demo = await startDemo();
process.stderr.write(`screenshots: demo ready at ${demo.url} in ${demo.readySeconds} s\n`);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
try {
  // Some traffic first, so the decision feed, its chart and the health rates have history.
  await new Promise((r) => setTimeout(r, Number(process.env.SCREENSHOT_WARMUP_S ?? 45) * 1000));
  const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
  for (const p of DEMO_PAGES) {
    await page.goto(`${demo.url}${p.path}`);
    await page.getByText(p.shows, { exact: false }).first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(800); // let charts and late rows settle
    await page.screenshot({ path: path.join(DOCS, `${p.name}.png`) });
    process.stderr.write(`screenshots: docs/${p.name}.png\n`);
  }
} finally {
  await browser.close();
  await demo.stop("SIGINT");
}
