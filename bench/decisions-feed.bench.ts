/**
 * audit-to-browser-ms: from the moment an audit batch is sent to the dashboard's sink (as the
 * apiserver's webhook backend sends it) to the moment its decision's row is in the DOM of an open
 * /decisions page in Chromium (median of 20; budget < 1,000). Both clocks are this machine's.
 * decisions-first-load-js-kb: gzipped JavaScript the /decisions page needs to load (budget ≤ 170).
 * Uses the stack named by PORTCULLIS_STACK, or starts one.
 */
import { pathToFileURL } from "node:url";
import { chromium } from "@playwright/test";
import { benchStack } from "./bench-stack";
import { auditBatches } from "../test/audit-batches";
import { firstLoadJs } from "./browser-measure";

type Measurement = { bench: string; value: number; unit: string };

export const benches = ["audit-to-browser-ms", "decisions-first-load-js-kb"];

const ROUNDS = 20;

/** Runs the benchmark; one entry per measurement. */
export async function run(): Promise<Measurement[]> {
  const stack = await benchStack({ log: () => undefined });
  const { info } = stack;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu"],
  });
  try {
    const user = `bench-${Date.now()}`;
    const page = await browser.newPage();
    await page.goto(`${info.dashboardUrl}/decisions?user=${user}`);
    await page.locator(".live", { hasText: "live" }).waitFor();
    const samples: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const [batch] = auditBatches(user, `${user}-${i}`, 1, 1);
      const auditID = `${user}-${i}-0-0`;
      // A string, not a function: the TypeScript loader would wrap a function's inner names in
      // a helper the page does not have.
      const selector = `table.decisions tr[data-audit-id="${auditID}"]`;
      const appeared = page.evaluate(`new Promise((resolve) => {
        if (document.querySelector('${selector}')) return resolve(Date.now());
        const o = new MutationObserver(() => {
          if (document.querySelector('${selector}')) { o.disconnect(); resolve(Date.now()); }
        });
        o.observe(document.body, { childList: true, subtree: true, attributes: true });
      })`) as Promise<number>;
      // The observer is in place before the batch leaves.
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
      const sent = Date.now();
      const res = await fetch(`${info.dashboardUrl}/api/audit`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${info.auditToken}` },
        body: batch,
      });
      if (res.status !== 200) throw new Error(`sink answered ${res.status}`);
      samples.push((await appeared) - sent);
    }
    samples.sort((a, b) => a - b);
    const { firstKb } = await firstLoadJs(browser, `${info.dashboardUrl}/decisions`);
    return [
      {
        bench: "audit-to-browser-ms",
        value: samples[Math.floor(samples.length / 2)] ?? NaN,
        unit: "ms",
      },
      { bench: "decisions-first-load-js-kb", value: Math.round(firstKb * 10) / 10, unit: "kB" },
    ];
  } finally {
    await browser.close();
    await stack.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
}
