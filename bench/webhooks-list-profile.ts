/**
 * Where a load of /webhooks spends its time, for finding causes (not a benchmark: its numbers are
 * one load's): seeds `--hooks` hooks (default 1,000) through the stack's apiserver, loads the page
 * in Chromium with a DevTools timeline trace (Playwright's CDP session), and prints JSON lines:
 * - webhooks-list-profile-html-bytes / -first-row-byte: the HTML's size and where the first row
 *   starts in it (what the browser must receive and parse before it can paint a row);
 * - webhooks-list-profile-main-ms by `phase`: the renderer main thread's top-level tasks by kind
 *   (HTML parsing, script evaluation, function calls, style and layout, paint), before the first
 *   row was painted and from then until the trace ends (2 s after it);
 * - webhooks-list-profile-first-row-ms: navigation start → first row painted, in this load.
 * `--trace FILE` also saves the raw trace (open it in Chromium's DevTools Performance panel).
 * Needs PORTCULLIS_STACK (a running stack: `npm run stack`).
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { chromium } from "@playwright/test";
import { readStack } from "../cluster/harness/stack";
import { paintedAt, watchFirstPaint } from "./browser-measure";
import { benchHook, deleteValidatingConfigs, seedValidatingConfigs } from "./seed-webhooks";

const { values } = parseArgs({
  options: { hooks: { type: "string", default: "1000" }, trace: { type: "string" } },
});
const hooks = Number(values.hooks);
const info = readStack();
const prefix = `prof-wl-${Date.now().toString(36)}`;
const names = await seedValidatingConfigs(info, prefix, Math.ceil(hooks / 10), (_c, name) =>
  Array.from({ length: 10 }, (_, h) =>
    benchHook(name, h, { namespaceSelector: { matchLabels: { "portcullis-bench-never": "set" } } }),
  ),
);
const rowSelector = `[data-row-id^="ValidatingWebhookConfiguration/${prefix}"]`;

type TraceEvent = {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
};

/** Top-level task kinds, by the trace event names DevTools' timeline uses. */
const PHASES: Record<string, string> = {
  ParseHTML: "parse-html",
  EvaluateScript: "evaluate-script",
  "v8.compile": "compile",
  FunctionCall: "function-call",
  TimerFire: "function-call",
  FireAnimationFrame: "function-call",
  EventDispatch: "function-call",
  RunMicrotasks: "function-call",
  UpdateLayoutTree: "style-layout",
  Layout: "style-layout",
  PrePaint: "paint",
  Paint: "paint",
  Layerize: "paint",
  Commit: "paint",
};

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
const out: Array<Record<string, unknown>> = [];
try {
  const html = await (
    await fetch(`${info.dashboardUrl}/webhooks`, {
      headers: {
        "sec-fetch-site": "none",
        "sec-fetch-mode": "navigate",
        "sec-fetch-dest": "document",
        "accept-encoding": "identity",
      },
    })
  ).text();
  const bytes = Buffer.byteLength(html);
  const firstRow = html.indexOf(`data-row-id="ValidatingWebhookConfiguration/${prefix}`);
  out.push({ bench: "webhooks-list-profile-html-bytes", value: bytes, unit: "B" });
  out.push({
    bench: "webhooks-list-profile-first-row-byte",
    value: firstRow < 0 ? -1 : Buffer.byteLength(html.slice(0, firstRow)),
    unit: "B",
  });

  // A warm-up load (the server's watches and caches), then the traced one in a fresh context, as
  // the benchmark loads it (nothing cached in the browser).
  const warm = await browser.newContext();
  await (await warm.newPage()).goto(`${info.dashboardUrl}/webhooks`);
  await warm.close();
  const ctx = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  await watchFirstPaint(ctx, rowSelector);
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on("Tracing.dataCollected", (e) => {
    events.push(...(e.value as unknown as TraceEvent[]));
  });
  const done = new Promise<void>((resolve) => cdp.once("Tracing.tracingComplete", () => resolve()));
  await cdp.send("Tracing.start", {
    categories: "devtools.timeline,v8.execute,blink.user_timing,loading",
    transferMode: "ReportEvents",
  });
  await page.goto(`${info.dashboardUrl}/webhooks`, { waitUntil: "commit" });
  const painted = await paintedAt(page);
  await page.waitForTimeout(2_000);
  await cdp.send("Tracing.end");
  await done;
  await ctx.close();
  if (values.trace) writeFileSync(values.trace, JSON.stringify({ traceEvents: events }));
  out.push({ bench: "webhooks-list-profile-first-row-ms", value: Math.round(painted), unit: "ms" });

  // The renderer's main thread: the thread named CrRendererMain of the page's process.
  const main = events.find(
    (e) => e.name === "thread_name" && e.args?.name === "CrRendererMain" && e.ph === "M",
  );
  const mark = events.find((e) => e.name === "first-paint-of-selector");
  const nav = events.find((e) => e.name === "navigationStart" && e.pid === main?.pid);
  const cut = mark?.ts ?? Infinity;
  const sums = new Map<string, number>();
  // Top-level only: a task's children are inside its duration.
  let end = -Infinity;
  for (const e of events
    .filter((e) => e.ph === "X" && e.pid === main?.pid && e.tid === main?.tid)
    .sort((a, b) => a.ts - b.ts)) {
    const phase = PHASES[e.name];
    if (!phase || e.ts < end || (nav && e.ts < nav.ts)) continue;
    end = e.ts + (e.dur ?? 0);
    const key = `${e.ts < cut ? "before" : "after"}-first-row ${phase}`;
    sums.set(key, (sums.get(key) ?? 0) + (e.dur ?? 0) / 1000);
  }
  for (const [phase, ms] of [...sums].sort())
    out.push({
      bench: "webhooks-list-profile-main-ms",
      phase,
      value: Math.round(ms * 10) / 10,
      unit: "ms",
    });
} finally {
  await browser.close();
  await deleteValidatingConfigs(info, names);
}
for (const m of out) console.log(JSON.stringify(m));
