/**
 * The webhook list at 1,000 hooks (100 ValidatingWebhookConfigurations × 10 hooks, seeded through
 * the apiserver and removed afterwards):
 * - webhooks-list-api-ms: the dashboard's list API (median), beside the apiserver's own list of
 *   the same collection measured in the same run (webhooks-list-apiserver-ms) as the reference,
 *   both uncompressed; webhooks-list-api-gzip-ms / webhooks-list-apiserver-gzip-ms: the same with
 *   `Accept-Encoding: gzip`, as a browser asks (both servers then compress);
 * - webhooks-list-first-render-ms: navigation start → first hook row painted, in Chromium (median),
 *   timed in the page; webhooks-list-first-render-observed-ms: when Playwright sees that row,
 *   which also waits for the main thread to be free after the paint (e.g. hydration);
 * - webhooks-list-first-load-js-kb: gzipped (level 6) JavaScript Chromium really fetches for
 *   /webhooks until load and network idle (the `noModule` polyfill is not fetched, so not
 *   counted); Monaco must not be in it (webhooks-list-monaco-in-first-load is 0 or 1). Scripts
 *   the HTML does not name and that are requested after the load event (the linter, loaded after
 *   first paint on purpose) are reported apart (webhooks-list-lazy-js-kb).
 * Uses the stack named by PORTCULLIS_STACK, or starts one.
 */
import { pathToFileURL } from "node:url";
import { readFileSync } from "node:fs";
import { chromium } from "@playwright/test";
import type { StackInfo } from "../cluster/harness/stack";
import { httpsRequest } from "../cluster/https-json";
import { firstLoadJs } from "./first-load-js";
import { policyHeaders } from "../e2e/api-headers";
import {
  benchHook,
  benchStack,
  deleteValidatingConfigs,
  median,
  seedValidatingConfigs,
} from "./seed-webhooks";

type Measurement = { bench: string; value: number; unit: string };

const CONFIGS = 100;
const HOOKS_PER_CONFIG = 10;
const PATH = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

function seed(info: StackInfo, prefix: string): Promise<string[]> {
  return seedValidatingConfigs(info, prefix, CONFIGS, (_c, name) =>
    Array.from({ length: HOOKS_PER_CONFIG }, (_, h) =>
      benchHook(name, h, {
        rules: [
          {
            operations: ["CREATE", "UPDATE"],
            apiGroups: [h % 2 ? "apps" : ""],
            apiVersions: ["v1"],
            resources: [h % 2 ? "deployments" : "configmaps"],
          },
        ],
        namespaceSelector: { matchLabels: { "portcullis-bench-never": "set" } },
      }),
    ),
  );
}

const cleanup = deleteValidatingConfigs;

async function timeIt(fn: () => Promise<unknown>, n: number): Promise<number> {
  await fn();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return median(samples);
}

/** Runs the benchmark; one entry per measurement. */
export async function run(): Promise<Measurement[]> {
  const { info, own } = await benchStack();
  const prefix = `bench-wl-${Date.now().toString(36)}`;
  const names: string[] = [];
  const out: Measurement[] = [];
  try {
    names.push(...(await seed(info, prefix)));
    const ca = readFileSync(info.caFile);
    // The same bytes both ways: uncompressed, and gzip-compressed as a browser asks (the
    // apiserver compresses lists over 128 KiB when asked; the dashboard's server compresses too).
    const listBoth = async (gzip: boolean) => {
      const apiserverMs = await timeIt(
        () => httpsRequest(`${info.server}${PATH}`, { ca, token: info.tokens.admin, gzip }),
        15,
      );
      const apiMs = await timeIt(async () => {
        // As the page sends it: same-origin and naming its context (the request policy).
        const r = await fetch(
          `${info.dashboardUrl}/api/resources/admissionregistration.k8s.io/v1/validatingwebhookconfigurations`,
          {
            headers: {
              ...policyHeaders(info.contexts.admin),
              "accept-encoding": gzip ? "gzip" : "identity",
            },
          },
        );
        await r.arrayBuffer();
        if (!r.ok) throw new Error(`list API answered ${r.status}`);
      }, 15);
      return { apiMs, apiserverMs };
    };
    const round = (x: number) => Math.round(x * 10) / 10;
    const plain = await listBoth(false);
    const gzip = await listBoth(true);
    out.push({ bench: "webhooks-list-api-ms", value: round(plain.apiMs), unit: "ms" });
    out.push({ bench: "webhooks-list-apiserver-ms", value: round(plain.apiserverMs), unit: "ms" });
    out.push({ bench: "webhooks-list-api-gzip-ms", value: round(gzip.apiMs), unit: "ms" });
    out.push({
      bench: "webhooks-list-apiserver-gzip-ms",
      value: round(gzip.apiserverMs),
      unit: "ms",
    });

    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu"],
    });
    try {
      // Paint time of the first bench row, taken in the page: a MutationObserver installed before
      // navigation sees the row inserted (from the streamed HTML or by React), and the frame that
      // paints it has run when a task queued from its requestAnimationFrame callback runs. (The
      // time at which Playwright notices the row is reported apart: it also waits for the main
      // thread to finish whatever follows the paint, such as hydration.)
      const renders: number[] = [];
      const observed: number[] = [];
      for (let i = 0; i < 4; i++) {
        const ctx = await browser.newContext({ viewport: { width: 1360, height: 860 } });
        await ctx.addInitScript((sel: string) => {
          const w = window as unknown as { __firstRowPaint?: number };
          new MutationObserver((_, obs) => {
            if (!document.querySelector(sel)) return;
            obs.disconnect();
            requestAnimationFrame(() =>
              setTimeout(() => {
                w.__firstRowPaint = performance.now();
              }, 0),
            );
          }).observe(document, { childList: true, subtree: true });
        }, `[data-row-id^="ValidatingWebhookConfiguration/${prefix}"]`);
        const page = await ctx.newPage();
        await page.goto(`${info.dashboardUrl}/webhooks`, { waitUntil: "commit" });
        await page.waitForSelector(`[data-row-id^="ValidatingWebhookConfiguration/${prefix}"]`, {
          timeout: 60_000,
        });
        const seen = await page.evaluate(() => performance.now());
        const painted = await page
          .waitForFunction(
            () => (window as unknown as { __firstRowPaint?: number }).__firstRowPaint,
          )
          .then((h) => h.jsonValue() as Promise<number>);
        if (i > 0) {
          // the first load warms the server
          renders.push(painted);
          observed.push(seen);
        }
        await ctx.close();
      }
      out.push({
        bench: "webhooks-list-first-render-ms",
        value: Math.round(median(renders)),
        unit: "ms",
      });
      out.push({
        bench: "webhooks-list-first-render-observed-ms",
        value: Math.round(median(observed)),
        unit: "ms",
      });

      const { firstKb, lazyKb, monaco } = await firstLoadJs(
        browser,
        `${info.dashboardUrl}/webhooks`,
      );
      out.push({
        bench: "webhooks-list-first-load-js-kb",
        value: Math.round(firstKb * 10) / 10,
        unit: "kB",
      });
      out.push({
        bench: "webhooks-list-lazy-js-kb",
        value: Math.round(lazyKb * 10) / 10,
        unit: "kB",
      });
      out.push({ bench: "webhooks-list-monaco-in-first-load", value: monaco, unit: "bool" });
    } finally {
      await browser.close();
    }
  } finally {
    await cleanup(info, names);
    await own?.stop();
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
}
