/**
 * The webhook list at 1,000 hooks (100 ValidatingWebhookConfigurations × 10 hooks, seeded through
 * the apiserver and removed afterwards):
 * - webhooks-list-api-ms: the dashboard's list API (median), beside the apiserver's own list of
 *   the same collection measured in the same run (webhooks-list-apiserver-ms) as the reference;
 * - webhooks-list-first-render-ms: navigation start → first hook row painted, in Chromium (median);
 * - webhooks-list-first-load-js-kb: gzipped JavaScript the page's HTML loads (script tags), i.e.
 *   what /webhooks actually fetches before it is interactive; Monaco must not be in it
 *   (webhooks-list-monaco-in-first-load is 0 or 1). The linter loads after first paint and is
 *   reported apart (webhooks-list-lazy-js-kb).
 * Uses the stack named by PORTCULLIS_STACK, or starts one.
 */
import { pathToFileURL } from "node:url";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { chromium } from "@playwright/test";
import { readStack, startStack, type Stack, type StackInfo } from "../cluster/harness/stack";
import { httpsRequest } from "../cluster/https-json";

type Measurement = { bench: string; value: number; unit: string };

const CONFIGS = 100;
const HOOKS_PER_CONFIG = 10;
const PATH = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

async function seed(info: StackInfo, prefix: string): Promise<string[]> {
  const ca = readFileSync(info.caFile);
  const names: string[] = [];
  for (let c = 0; c < CONFIGS; c++) {
    const name = `${prefix}-${String(c).padStart(3, "0")}`;
    const webhooks = Array.from({ length: HOOKS_PER_CONFIG }, (_, h) => ({
      name: `h${h}.${name}.example.com`,
      admissionReviewVersions: ["v1"],
      sideEffects: "None",
      failurePolicy: h % 3 === 0 ? "Ignore" : "Fail",
      timeoutSeconds: 1 + (h % 10),
      clientConfig: { url: `https://127.0.0.1:9/${name}/${h}` },
      rules: [
        {
          operations: ["CREATE", "UPDATE"],
          apiGroups: [h % 2 ? "apps" : ""],
          apiVersions: ["v1"],
          resources: [h % 2 ? "deployments" : "configmaps"],
        },
      ],
      namespaceSelector: { matchLabels: { "portcullis-bench-never": "set" } },
    }));
    const res = await httpsRequest(`${info.server}${PATH}`, {
      method: "POST",
      ca,
      token: info.tokens.admin,
      body: { metadata: { name }, webhooks },
    });
    if (res.status !== 201) throw new Error(`seed ${name}: ${res.status} ${res.body}`);
    names.push(name);
  }
  return names;
}

async function cleanup(info: StackInfo, names: string[]): Promise<void> {
  const ca = readFileSync(info.caFile);
  for (const n of names)
    await httpsRequest(`${info.server}${PATH}/${n}`, {
      method: "DELETE",
      ca,
      token: info.tokens.admin,
    });
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
  let own: Stack | undefined;
  let info: StackInfo;
  if (process.env.PORTCULLIS_STACK) info = readStack();
  else {
    own = await startStack();
    info = own.info;
  }
  const prefix = `bench-wl-${Date.now().toString(36)}`;
  const names: string[] = [];
  const out: Measurement[] = [];
  try {
    names.push(...(await seed(info, prefix)));
    const ca = readFileSync(info.caFile);
    const apiserverMs = await timeIt(
      () => httpsRequest(`${info.server}${PATH}`, { ca, token: info.tokens.admin }),
      15,
    );
    const apiMs = await timeIt(async () => {
      const r = await fetch(
        `${info.dashboardUrl}/api/resources/admissionregistration.k8s.io/v1/validatingwebhookconfigurations`,
      );
      await r.arrayBuffer();
      if (!r.ok) throw new Error(`list API answered ${r.status}`);
    }, 15);
    out.push({ bench: "webhooks-list-api-ms", value: Math.round(apiMs * 10) / 10, unit: "ms" });
    out.push({
      bench: "webhooks-list-apiserver-ms",
      value: Math.round(apiserverMs * 10) / 10,
      unit: "ms",
    });

    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu"],
    });
    try {
      const renders: number[] = [];
      for (let i = 0; i < 4; i++) {
        const ctx = await browser.newContext({ viewport: { width: 1360, height: 860 } });
        const page = await ctx.newPage();
        await page.goto(`${info.dashboardUrl}/webhooks`, { waitUntil: "commit" });
        await page.waitForSelector(`[data-row-id^="ValidatingWebhookConfiguration/${prefix}"]`, {
          timeout: 60_000,
        });
        const ms = await page.evaluate(() => performance.now());
        if (i > 0) renders.push(ms); // the first load warms the server
        await ctx.close();
      }
      out.push({
        bench: "webhooks-list-first-render-ms",
        value: Math.round(median(renders)),
        unit: "ms",
      });

      // First-load JS: the scripts the page's HTML names, as the browser fetches them, gzipped.
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      const bodies = new Map<string, Buffer>();
      page.on("response", async (r) => {
        if (r.request().resourceType() === "script") {
          try {
            bodies.set(new URL(r.url()).pathname, await r.body());
          } catch {
            // navigation raced the body; it is fetched again below
          }
        }
      });
      const html = await (await fetch(`${info.dashboardUrl}/webhooks`)).text();
      const initial = new Set(
        [...html.matchAll(/<script[^>]+src="([^"]+\.js)"/g)].map((m) => m[1] ?? ""),
      );
      await page.goto(`${info.dashboardUrl}/webhooks`, { waitUntil: "networkidle" });
      let firstKb = 0;
      let lazyKb = 0;
      let monaco = 0;
      for (const p of new Set([...initial, ...bodies.keys()])) {
        const body =
          bodies.get(p) ??
          Buffer.from(await (await fetch(`${info.dashboardUrl}${p}`)).arrayBuffer());
        const kb = gzipSync(body, { level: 9 }).length / 1024;
        if (initial.has(p)) {
          firstKb += kb;
          if (/MonacoEnvironment|monaco-editor|vs\/editor\/editor/.test(body.toString("utf8")))
            monaco = 1;
        } else lazyKb += kb;
      }
      await ctx.close();
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
