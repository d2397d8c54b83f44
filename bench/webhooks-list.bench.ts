/**
 * The webhook list at 1,000 hooks (100 ValidatingWebhookConfigurations × 10 hooks, seeded through
 * the apiserver and removed afterwards):
 * - webhooks-list-api-ms: the dashboard's list API (median), beside the apiserver's own list of
 *   the same collection measured in the same run (webhooks-list-apiserver-ms) as the reference,
 *   both uncompressed; webhooks-list-api-gzip-ms / webhooks-list-apiserver-gzip-ms: the same with
 *   `Accept-Encoding: gzip`, as a browser asks (both servers then compress);
 *   webhooks-list-api-cpu-ms / webhooks-list-apiserver-cpu-ms: CPU time per uncompressed list
 *   (mean over CPU_LISTS, from /proc on Linux), the dashboard's path counted as the dashboard's
 *   process plus the apiserver's (which it may call), the apiserver's own list as the apiserver's
 *   process: unlike wall-clock medians these hold on a shared, loaded machine;
 * - webhooks-list-first-render-ms: navigation start → first hook row painted, in Chromium (median),
 *   timed in the page; webhooks-list-first-render-observed-ms: when Playwright sees that row,
 *   which also waits for the main thread to be free after the paint (e.g. hydration);
 * - webhooks-list-first-load-js-kb: gzipped (level 6) JavaScript Chromium really fetches for
 *   /webhooks until load and network idle (the `noModule` polyfill is not fetched, so not
 *   counted); Monaco must not be in it (webhooks-list-monaco-in-first-load is 0 or 1). Scripts
 *   the HTML does not name and that are requested after the load event (the linter, loaded after
 *   first paint on purpose) are reported apart (webhooks-list-lazy-js-kb);
 * - webhooks-list-add-visible-p95-ms / webhooks-list-delete-visible-p95-ms: a configuration created
 *   or deleted elsewhere → its row appears or goes in an open list, p95 over 20 of each;
 * - webhooks-list-10k-first-render-ms (and -observed-ms): the first row again at 10,000 hooks;
 * - webhooks-list-render-cpu-ms / webhooks-list-10k-render-cpu-ms: the dashboard process's CPU
 *   time per server render of /webhooks (the whole HTML, first rows and seed), at 1,000 and
 *   10,000 hooks (mean, from /proc on Linux).
 * Uses the stack named by PORTCULLIS_STACK, or starts one.
 */
import { pathToFileURL } from "node:url";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { chromium, type Browser } from "@playwright/test";
import type { StackInfo } from "../cluster/harness/stack";
import { httpsRequest } from "../cluster/https-json";
import { firstPaint } from "./browser-measure";
import { firstLoadJs } from "./first-load-js";
import { policyHeaders } from "../test/api-headers";
import {
  benchHook,
  benchStack,
  deleteValidatingConfigs,
  median,
  seedValidatingConfigs,
} from "./seed-webhooks";

type Measurement = { bench: string; value: number; unit: string };

const CONFIGS = 100;
/** The large case: 10,000 hooks. */
const CONFIGS_10K = 1000;
/** Creates and deletes timed for the change-visible measure. */
const CHANGES = 20;
const HOOKS_PER_CONFIG = 10;
const PATH = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

function seed(info: StackInfo, prefix: string, count = CONFIGS): Promise<string[]> {
  return seedValidatingConfigs(info, prefix, count, (_c, name) =>
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

/** Lists timed for the CPU-time measure (clock ticks are 10 ms: many lists, one mean). */
const CPU_LISTS = 60;

const CLK_TCK = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (user + system, ms) process `pid` has used so far; undefined without /proc. */
function cpuMs(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // After "pid (comm) ": state is field 3 of the line; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
  } catch {
    return undefined;
  }
}

/** Server renders timed for the render CPU measure. */
const CPU_RENDERS = 20;

/** /webhooks as a browser navigates to it (the request policy's Fetch Metadata), read whole. */
async function renderPage(dashboardUrl: string): Promise<void> {
  const r = await fetch(`${dashboardUrl}/webhooks`, {
    headers: {
      "sec-fetch-site": "none",
      "sec-fetch-mode": "navigate",
      "sec-fetch-dest": "document",
      "accept-encoding": "identity",
    },
  });
  const html = await r.text();
  if (!r.ok || !html.includes("data-row-id=")) throw new Error(`/webhooks answered ${r.status}`);
}

/** The stack's kube-apiserver process, by its command line. */
function apiserverPid(info: StackInfo): number | undefined {
  return info.pids.find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("kube-apiserver");
    } catch {
      return false;
    }
  });
}

/** Mean CPU ms per call of `fn` used by the processes `pids` together (undefined without /proc). */
async function cpuPerCall(
  fn: () => Promise<unknown>,
  pids: Array<number | undefined>,
  calls = CPU_LISTS,
): Promise<number | undefined> {
  await fn();
  const before = pids.map(cpuMs);
  for (let i = 0; i < calls; i++) await fn();
  const after = pids.map(cpuMs);
  let sum = 0;
  for (let i = 0; i < pids.length; i++) {
    const a = after[i];
    const b = before[i];
    if (a === undefined || b === undefined) return undefined;
    sum += a - b;
  }
  return sum / calls;
}

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
    const apiserverList = (gzip: boolean) => () =>
      httpsRequest(`${info.server}${PATH}`, { ca, token: info.tokens.admin, gzip });
    const dashboardList = (gzip: boolean) => async () => {
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
    };
    const listBoth = async (gzip: boolean) => {
      const apiserverMs = await timeIt(apiserverList(gzip), 15);
      const apiMs = await timeIt(dashboardList(gzip), 15);
      return { apiMs, apiserverMs };
    };
    const round = (x: number) => Math.round(x * 10) / 10;
    const plain = await listBoth(false);
    const gzip = await listBoth(true);
    const apiserverProcess = apiserverPid(info);
    const apiserverCpu = await cpuPerCall(apiserverList(false), [apiserverProcess]);
    const apiCpu = await cpuPerCall(dashboardList(false), [info.dashboardPid, apiserverProcess]);
    out.push({ bench: "webhooks-list-api-ms", value: round(plain.apiMs), unit: "ms" });
    out.push({ bench: "webhooks-list-apiserver-ms", value: round(plain.apiserverMs), unit: "ms" });
    if (apiCpu !== undefined && apiserverCpu !== undefined) {
      out.push({ bench: "webhooks-list-api-cpu-ms", value: round(apiCpu), unit: "ms" });
      out.push({ bench: "webhooks-list-apiserver-cpu-ms", value: round(apiserverCpu), unit: "ms" });
    }
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
      const renderCpu = await cpuPerCall(
        () => renderPage(info.dashboardUrl),
        [info.dashboardPid],
        CPU_RENDERS,
      );
      if (renderCpu !== undefined)
        out.push({ bench: "webhooks-list-render-cpu-ms", value: round(renderCpu), unit: "ms" });
      const first = await firstRender(browser, info.dashboardUrl, prefix);
      out.push({ bench: "webhooks-list-first-render-ms", value: first.render, unit: "ms" });
      out.push({
        bench: "webhooks-list-first-render-observed-ms",
        value: first.observed,
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

      const change = await changeVisible(browser, info, `${prefix}-chg`);
      out.push({ bench: "webhooks-list-add-visible-p95-ms", value: change.add, unit: "ms" });
      out.push({ bench: "webhooks-list-delete-visible-p95-ms", value: change.del, unit: "ms" });

      // 10,000 hooks: 900 configurations more, and the first row again.
      names.push(...(await seed(info, `${prefix}-x`, CONFIGS_10K - CONFIGS)));
      const bigCpu = await cpuPerCall(
        () => renderPage(info.dashboardUrl),
        [info.dashboardPid],
        CPU_RENDERS,
      );
      if (bigCpu !== undefined)
        out.push({ bench: "webhooks-list-10k-render-cpu-ms", value: round(bigCpu), unit: "ms" });
      const big = await firstRender(browser, info.dashboardUrl, prefix);
      out.push({ bench: "webhooks-list-10k-first-render-ms", value: big.render, unit: "ms" });
      out.push({
        bench: "webhooks-list-10k-first-render-observed-ms",
        value: big.observed,
        unit: "ms",
      });
    } finally {
      await browser.close();
    }
  } finally {
    await cleanup(info, names);
    await own?.stop();
  }
  return out;
}

/** A row of the configuration (exactly `config`), or of any whose name starts `config` + "-". */
const rowSelector = (config: string) => `[data-row-id^="ValidatingWebhookConfiguration/${config}"]`;

/**
 * Paint time of the first bench row (median of 3 loads after a warm-up), taken in the page: a
 * MutationObserver installed before navigation sees the row inserted (from the streamed HTML or by
 * React), and the frame that paints it has run when a task queued from its requestAnimationFrame
 * callback runs. The time at which Playwright notices the row is reported apart (`observed`): it
 * also waits for the main thread to finish whatever follows the paint, such as hydration.
 */
async function firstRender(
  browser: Browser,
  dashboardUrl: string,
  prefix: string,
): Promise<{ render: number; observed: number }> {
  const renders: number[] = [];
  const observed: number[] = [];
  for (let i = 0; i < 4; i++) {
    const t = await firstPaint(browser, `${dashboardUrl}/webhooks`, rowSelector(prefix));
    if (i > 0) {
      // the first load warms the server
      renders.push(t.painted);
      observed.push(t.seen);
    }
  }
  return { render: Math.round(median(renders)), observed: Math.round(median(observed)) };
}

/** The 95th percentile (nearest rank). */
function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(s.length * 0.95) - 1)] ?? NaN;
}

/**
 * A change made elsewhere → visible in an open list (filtered to these configurations, among the
 * 1,000 hooks): CHANGES configurations created one by one through the apiserver, then deleted,
 * each timed from just before the request is sent to the frame that paints the row's arrival or
 * departure (wall clock on both sides; the page's observer stamps Date.now() in that frame).
 */
async function changeVisible(
  browser: Browser,
  info: StackInfo,
  prefix: string,
): Promise<{ add: number; del: number }> {
  const ca = readFileSync(info.caFile);
  const ctx = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  const page = await ctx.newPage();
  await page.goto(`${info.dashboardUrl}/webhooks?q=${prefix}`);
  await page.waitForSelector('.live[data-state="live"]', { timeout: 60_000 });
  const watch = (sel: string, present: boolean) =>
    page.evaluate(
      ({ sel, present }) =>
        new Promise<number>((resolve) => {
          // (No named functions in here: the bundler would wrap them in a helper the page lacks.)
          const obs = new MutationObserver(() => {
            if (!!document.querySelector(sel) !== present) return;
            obs.disconnect();
            requestAnimationFrame(() => setTimeout(() => resolve(Date.now()), 0));
          });
          if (!!document.querySelector(sel) === present)
            requestAnimationFrame(() => setTimeout(() => resolve(Date.now()), 0));
          else obs.observe(document.body, { childList: true, subtree: true });
        }),
      { sel, present },
    );
  const timed = async (sel: string, present: boolean, act: () => Promise<void>) => {
    const seen = watch(sel, present);
    // The observer is installed before the request leaves (evaluate has reached the page).
    await page.evaluate(() => 0);
    const sent = Date.now();
    await act();
    return (await seen) - sent;
  };
  const add: number[] = [];
  const del: number[] = [];
  const names = Array.from(
    { length: CHANGES },
    (_, i) => `${prefix}-${String(i).padStart(2, "0")}`,
  );
  try {
    for (const name of names) {
      add.push(
        await timed(rowSelector(name), true, async () => {
          const res = await httpsRequest(`${info.server}${PATH}`, {
            method: "POST",
            ca,
            token: info.tokens.admin,
            body: {
              metadata: { name },
              webhooks: [
                benchHook(name, 0, {
                  namespaceSelector: { matchLabels: { "portcullis-bench-never": "set" } },
                }),
              ],
            },
          });
          if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.body}`);
        }),
      );
    }
    for (const name of names) {
      del.push(
        await timed(rowSelector(name), false, async () => {
          const res = await httpsRequest(`${info.server}${PATH}/${name}`, {
            method: "DELETE",
            ca,
            token: info.tokens.admin,
          });
          if (res.status !== 200) throw new Error(`delete ${name}: ${res.status} ${res.body}`);
        }),
      );
    }
  } finally {
    await deleteValidatingConfigs(info, names);
    await ctx.close();
  }
  return { add: Math.round(p95(add)), del: Math.round(p95(del)) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
}
