/**
 * The fleet page with 20 contexts, one of them hanging (a TCP listener that accepts and never
 * answers), on a dashboard of its own; the other 19 reach the stack's apiserver, each as a
 * context of its own (read with its own client and timeout, as if 19 clusters). In Chromium,
 * medians of 3 loads after a warm-up:
 * - fleet-20-contexts-first-rows-ms: the table painted with all 20 rows (each says "reading");
 * - fleet-20-contexts-first-render-ms: every reachable cluster's row read and painted — budget
 *   (issue 61) 2 s;
 * - fleet-20-contexts-hanging-row-ms: the hanging context's row saying it did not answer (its
 *   timeout, 5 s): the others never wait for it, which the budget above proves.
 * Needs the production build (the stack's) and PORTCULLIS_STACK or starts a stack.
 */
import { mkdtempSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "@playwright/test";
import { benchStack } from "./bench-stack";
import { median } from "./browser-measure";
import { dashboardEnv } from "../cluster/harness/stack";
import { startDashboard } from "../test/dashboard-process";
import { adminContext, startHangingListener, writeFleetKubeconfig } from "../test/fleet";

type Measurement = { bench: string; value: number; unit: string };

export const benches = [
  "fleet-20-contexts-first-rows-ms",
  "fleet-20-contexts-first-render-ms",
  "fleet-20-contexts-hanging-row-ms",
];

const CONTEXTS = 20;
const TIMEOUT_MS = 5_000;
const BUDGET_MS = 2_000;

export async function run(): Promise<Measurement[]> {
  const stack = await benchStack();
  const hanging = await startHangingListener();
  const dir = mkdtempSync(path.join(stack.info.dir, "fleet-bench-"));
  const contexts = Array.from({ length: CONTEXTS - 1 }, (_, i) =>
    adminContext(`cluster-${String(i + 1).padStart(2, "0")}`, stack.info),
  );
  contexts.splice(7, 0, { ...adminContext("hanging", stack.info), server: hanging.server });
  const kubeconfig = writeFleetKubeconfig(path.join(dir, "kubeconfig"), contexts, "cluster-01");
  const base = dashboardEnv(stack.info);
  delete base.PORTCULLIS_OTLP_LISTEN;
  delete base.PORTCULLIS_AUDIT_TLS_LISTEN;
  const dashboard = await startDashboard({
    ...base,
    KUBECONFIG: kubeconfig,
    PORTCULLIS_DEFAULT_CONTEXT: "cluster-01",
    PORTCULLIS_DATA_DIR: path.join(dir, "data"),
    PORTCULLIS_FLEET_TIMEOUT_MS: String(TIMEOUT_MS),
  });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu"],
  });
  try {
    const load = async () => {
      const ctx = await browser.newContext({ viewport: { width: 1360, height: 860 } });
      try {
        // In the page, ms since navigation start: when all rows are there, when every reachable
        // one is read, when the hanging one says it did not answer (each after a painted frame).
        // (No named function inside: tsx would wrap it in a helper the page does not have.)
        await ctx.addInitScript((n: number) => {
          const w = window as unknown as Record<string, number>;
          new MutationObserver(() => {
            const rows = document.querySelectorAll('[data-testid="fleet-row"]');
            if (rows.length < n) return;
            const due: string[] = ["__rows"];
            const states = [...rows].map((r) => r.getAttribute("data-state"));
            if (states.filter((s) => s === "read").length >= n - 1) due.push("__read");
            const hanging = document.querySelector('[data-cluster="hanging"]');
            if (hanging?.getAttribute("data-state") === "failed") due.push("__hang");
            for (const key of due) {
              if (`${key}Asked` in w) continue;
              w[`${key}Asked`] = 1;
              requestAnimationFrame(() =>
                setTimeout(() => {
                  w[key] ??= performance.now();
                }, 0),
              );
            }
          }).observe(document, { childList: true, subtree: true, attributes: true });
        }, CONTEXTS);
        const page = await ctx.newPage();
        await page.goto(`${dashboard.url}fleet`, { waitUntil: "commit" });
        const at = (key: string) =>
          page
            .waitForFunction((k: string) => (window as unknown as Record<string, number>)[k], key, {
              timeout: 60_000,
            })
            .then((h) => h.jsonValue() as Promise<number>);
        const [rows, read, hang] = await Promise.all([
          at("__rows"),
          at("__read"),
          at("__hang"),
        ]).catch(async (e: unknown) => {
          const states = await page
            .locator('[data-testid="fleet-row"]')
            .evaluateAll((rs) =>
              rs.map(
                (r) =>
                  `${r.getAttribute("data-cluster")}=${r.getAttribute("data-state")} ${r.textContent?.slice(0, 160) ?? ""}`,
              ),
            );
          throw new Error(
            `${e instanceof Error ? e.message : String(e)}; rows: ${states.join(" | ")}`,
          );
        });
        return { rows, read, hang };
      } finally {
        await ctx.close();
      }
    };
    await load();
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await load());
    const round = (x: number) => Math.round(x);
    const out = [
      { bench: benches[0] as string, value: round(median(runs.map((r) => r.rows))), unit: "ms" },
      { bench: benches[1] as string, value: round(median(runs.map((r) => r.read))), unit: "ms" },
      { bench: benches[2] as string, value: round(median(runs.map((r) => r.hang))), unit: "ms" },
    ];
    if (process.env.FLEET_BENCH_RUNS) console.error(JSON.stringify(runs));
    const firstRender = out[1]?.value ?? Infinity;
    if (firstRender > BUDGET_MS)
      throw new Error(
        `fleet first render with ${CONTEXTS} contexts took ${firstRender} ms (budget ${BUDGET_MS}): ${JSON.stringify(out)}`,
      );
    return out;
  } finally {
    await browser.close();
    dashboard.stop();
    await hanging.close();
    await stack.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
}
