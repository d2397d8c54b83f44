/**
 * The exemption matrix page at 10,000 namespaces × 1,000 hooks, seeded through a real apiserver
 * (a stack of its own, thrown away afterwards: 10,000 namespaces are not worth deleting one by
 * one), with the bench fixtures' labels (runlevel, team, env, …) and hooks:
 * - exemption-matrix-first-render-ms: navigation start → first matrix cell painted in Chromium
 *   (median of 3 after a warm-up load), timed in the page; it includes reading the collections,
 *   compiling the snapshot and computing the matrix in the browser.
 *   exemption-matrix-first-render-observed-ms: when Playwright sees that cell.
 * - namespaces-first-load-js-kb: gzipped JavaScript fetched for /namespaces until load (see
 *   browser-measure.ts); namespaces-graph-library-in-first-load must be 0 (the layout library is
 *   loaded only by the deadlock map); namespaces-lazy-js-kb: what the page loads after load.
 * PORTCULLIS_BENCH_NAMESPACES / PORTCULLIS_BENCH_HOOKS scale it down for a quick look.
 */
import { pathToFileURL } from "node:url";
import { readFileSync } from "node:fs";
import { chromium } from "@playwright/test";
import { startStack, type StackInfo } from "../cluster/harness/stack";
import { httpsRequest } from "../cluster/https-json";
import { makeNamespaces, makeSnapshot } from "./fixtures";
import { firstLoadJs, paintBenches } from "./browser-measure";

type Measurement = { bench: string; value: number; unit: string };

/** The measurements this file prints (for `npm run bench -- NAME`). */
export const benches = [
  "exemption-matrix-first-render-ms",
  "exemption-matrix-first-render-observed-ms",
  "namespaces-first-load-js-kb",
  "namespaces-lazy-js-kb",
  "namespaces-graph-library-in-first-load",
];

const NAMESPACES = Number(process.env.PORTCULLIS_BENCH_NAMESPACES ?? 10_000);
const HOOKS = Number(process.env.PORTCULLIS_BENCH_HOOKS ?? 1_000);
const PARALLEL = 16;

async function inParallel<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

export async function seed(info: StackInfo): Promise<void> {
  const ca = readFileSync(info.caFile);
  const post = async (path: string, body: unknown) => {
    const res = await httpsRequest(`${info.server}${path}`, {
      method: "POST",
      ca,
      token: info.tokens.admin,
      body,
      timeoutMs: 60_000,
    });
    if (res.status !== 201)
      throw new Error(`seed ${path}: ${res.status} ${res.body.slice(0, 300)}`);
  };
  // Namespaces first: some bench hooks match namespaces, and their backends do not exist.
  const namespaces = Object.entries(makeNamespaces(NAMESPACES)).filter(
    ([name]) => !["kube-system", "kube-public", "kube-node-lease", "default"].includes(name),
  );
  await inParallel(namespaces, ([name, labels]) =>
    post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name, labels } }),
  );
  // The apiserver must never call these hooks (their Services do not exist): a matchCondition
  // that is always false keeps every write admitted, and the matrix still shows their selectors.
  const never = { name: "bench-never", expression: "false" };
  const snap = makeSnapshot(HOOKS, 0);
  const configs = [
    ...(snap.mutatingWebhookConfigurations ?? []).map((c) => ["mutating", c] as const),
    ...(snap.validatingWebhookConfigurations ?? []).map((c) => ["validating", c] as const),
  ];
  await inParallel(configs, ([type, c]) =>
    post(`/apis/admissionregistration.k8s.io/v1/${type}webhookconfigurations`, {
      ...c,
      webhooks: (c.webhooks ?? []).map((w) => ({
        ...w,
        matchConditions: [...(w.matchConditions ?? []), never],
      })),
    }),
  );
}

/** Runs the benchmark; one entry per measurement. */
export async function run(): Promise<Measurement[]> {
  const stack = await startStack();
  const info = stack.info;
  const out: Measurement[] = [];
  try {
    await seed(info);
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu"],
    });
    try {
      out.push(
        ...(await paintBenches(
          browser,
          `${info.dashboardUrl}/namespaces`,
          '[role="gridcell"]',
          "exemption-matrix-first-render-ms",
          3,
          120_000,
        )),
      );
      const js = await firstLoadJs(browser, `${info.dashboardUrl}/namespaces`, {
        graph: /dagre|graphlib/i,
      });
      out.push({
        bench: "namespaces-first-load-js-kb",
        value: Math.round(js.firstKb * 10) / 10,
        unit: "kB",
      });
      out.push({
        bench: "namespaces-lazy-js-kb",
        value: Math.round(js.lazyKb * 10) / 10,
        unit: "kB",
      });
      out.push({
        bench: "namespaces-graph-library-in-first-load",
        value: js.found.graph ? 1 : 0,
        unit: "bool",
      });
    } finally {
      await browser.close();
    }
  } finally {
    await stack.stop();
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
}
