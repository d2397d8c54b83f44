/**
 * The webhook list at 1,000 hooks (100 ValidatingWebhookConfigurations × 10 hooks, seeded through
 * the apiserver and removed afterwards):
 * - webhooks-list-api-ms: the dashboard's list API (median), beside the apiserver's own list of
 *   the same collection measured in the same run (webhooks-list-apiserver-ms) as the reference;
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
import { readStack, startStack, type Stack, type StackInfo } from "../cluster/harness/stack";
import { httpsRequest } from "../cluster/https-json";
import { firstLoadJs, median, paintBenches } from "./browser-measure";

type Measurement = { bench: string; value: number; unit: string };

const CONFIGS = 100;
const HOOKS_PER_CONFIG = 10;
const PATH = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

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
      // Paint time of the first bench row (see browser-measure.ts).
      out.push(
        ...(await paintBenches(
          browser,
          `${info.dashboardUrl}/webhooks`,
          `[data-row-id^="ValidatingWebhookConfiguration/${prefix}"]`,
          "webhooks-list-first-render-ms",
        )),
      );

      // First-load JS (see browser-measure.ts); Monaco must not be in it.
      const js = await firstLoadJs(browser, `${info.dashboardUrl}/webhooks`, {
        monaco: /MonacoEnvironment|monaco-editor|vs\/editor\/editor/,
      });
      const firstKb = js.firstKb;
      const lazyKb = js.lazyKb;
      const monaco = js.found.monaco ? 1 : 0;
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
