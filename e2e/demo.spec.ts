/**
 * The demo as a newcomer meets it: `npm run demo` (the production server on its own seeded
 * cluster), every page of the navigation visited in Chromium, each showing data from the real
 * cluster, and no page load asking for a file that is not there.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test, expect } from "@playwright/test";
import { startDemo, type DemoProcess } from "../cluster/harness/demo-process";
import { DEMO_PAGES } from "../cluster/harness/demo-ready";

test.describe.configure({ mode: "serial" });

let demo: DemoProcess;
const stateDir = mkdtempSync(path.join(os.tmpdir(), "portcullis-demo-e2e-"));

test.beforeAll(async () => {
  test.setTimeout(240_000);
  demo = await startDemo({ PORTCULLIS_STATE_DIR: stateDir });
});

test.afterAll(async () => {
  await demo?.stop("SIGINT");
  rmSync(stateDir, { recursive: true, force: true });
});

test("every page of the navigation shows the demo's data, and no page load meets a 404", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const failed: string[] = [];
  page.on("response", (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
  });

  await page.goto(`${demo.url}/`);
  const nav = page.getByRole("navigation", { name: "Main" });
  const links = await nav
    .getByRole("link")
    .evaluateAll((as) => as.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
  // The navigation and the demo's page list agree: a new page must be added to both.
  for (const href of links) expect(DEMO_PAGES.map((p) => p.path)).toContain(href);

  for (const p of DEMO_PAGES) {
    await page.goto(`${demo.url}${p.path}`);
    await expect(page.getByRole("main"), p.path).toContainText(p.shows, { timeout: 30_000 });
  }
  // The icons every page references are served.
  for (const icon of [
    "/favicon.ico",
    "/favicon.svg",
    "/apple-touch-icon.png",
    "/manifest.webmanifest",
  ]) {
    const res = await page.request.get(`${demo.url}${icon}`);
    expect(res.status(), icon).toBe(200);
  }
  expect(failed).toEqual([]);
});

test("the decision feed moves while the page is open", async ({ page }) => {
  await page.goto(`${demo.url}/decisions`);
  const count = page.getByText(/^\d+ decisions shown$/);
  await expect(count).toBeVisible({ timeout: 30_000 });
  const first = Number((await count.innerText()).split(" ")[0]);
  await expect
    .poll(async () => Number((await count.innerText()).split(" ")[0]), { timeout: 30_000 })
    .toBeGreaterThan(first);
});
