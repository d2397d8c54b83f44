import { defineConfig } from "@playwright/test";
import { CHROMIUM_ARGS } from "./scripts/prerequisites";

/** End-to-end tests in Debian's Chromium against the real control plane and a production build. */
export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results",
  globalSetup: "./test/e2e/global-setup.ts",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.PORTCULLIS_PLAYWRIGHT_JSON
    ? [["list"], ["json", { outputFile: process.env.PORTCULLIS_PLAYWRIGHT_JSON }]]
    : [["list"]],
  use: {
    browserName: "chromium",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [...CHROMIUM_ARGS],
    },
    viewport: { width: 1360, height: 860 },
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
  },
});
