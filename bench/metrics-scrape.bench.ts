/**
 * Scraping and folding an apiserver /metrics of 1,000 hooks: the text is served over loopback
 * HTTP (as the apiserver would serve it), read, parsed and folded by the real parser, and the
 * rolling window computed against the previous scrape for every hook (deltas and p50/p90/p99), as
 * server/health/scraper.ts does every 15 s. The series carry the label sets of a 1.37 scrape
 * (lib/admission/health/testdata/metrics-1.37.txt) and sit among other apiserver metrics, which the
 * parser must skip. Reference, measured in the same run: one pass that only finds the lines.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import {
  foldAdmissionMetrics,
  histogramQuantile,
  webhookDelta,
  type AdmissionMetrics,
} from "@/lib/admission/health/metrics";

const HOOKS = 1000;
const BOUNDS = ["0.005", "0.025", "0.1", "0.5", "1", "2.5", "10", "25", "+Inf"];
const OPERATIONS = ["CREATE", "UPDATE", "DELETE"];

/** A 1.37-shaped scrape: `round` scales the counters so two scrapes make a window. */
export function makeScrape(hooks: number, round: number): string {
  const out: string[] = [];
  // Other apiserver metrics, as many lines as a busy apiserver exports (they are skipped).
  for (let i = 0; i < 20_000; i++) {
    out.push(
      `apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="r${i % 400}",scope="resource",subresource="",verb="GET",version="v1",le="${BOUNDS[i % 9]}"} ${i * round}`,
    );
  }
  const hist: string[] = [];
  const total: string[] = [];
  const rejections: string[] = [];
  const failOpen: string[] = [];
  const mcErrors: string[] = [];
  for (let h = 0; h < hooks; h++) {
    const name = `hook-${h}.team-${h % 37}.example.com`;
    const type = h % 2 === 0 ? "admit" : "validating";
    for (const operation of OPERATIONS.slice(0, 1 + (h % 3))) {
      for (const rejected of ["false", "true"]) {
        const calls = (rejected === "true" ? 3 : 40 + (h % 50)) * round;
        const labels = `name="${name}",operation="${operation}",rejected="${rejected}",type="${type}"`;
        BOUNDS.forEach((le, b) => {
          const c = Math.round((calls * Math.min(b + 1 + (h % 4), 9)) / 9);
          hist.push(
            `apiserver_admission_webhook_admission_duration_seconds_bucket{${labels},le="${le}"} ${c}`,
          );
        });
        hist.push(
          `apiserver_admission_webhook_admission_duration_seconds_sum{${labels}} ${(calls * 0.0123).toFixed(6)}`,
        );
        hist.push(
          `apiserver_admission_webhook_admission_duration_seconds_count{${labels}} ${calls}`,
        );
        total.push(
          `apiserver_admission_webhook_request_total{code="${rejected === "true" ? "403" : "200"}",${labels}} ${calls}`,
        );
      }
      rejections.push(
        `apiserver_admission_webhook_rejection_count{error_type="no_error",name="${name}",operation="${operation}",rejection_code="403",type="${type}"} ${3 * round}`,
      );
      if (h % 10 === 0) {
        rejections.push(
          `apiserver_admission_webhook_rejection_count{error_type="calling_webhook_error",name="${name}",operation="${operation}",rejection_code="503",type="${type}"} ${round}`,
        );
        mcErrors.push(
          `apiserver_admission_match_condition_evaluation_errors_total{kind="webhook",name="${name}",operation="${operation}",type="${type}"} ${round}`,
        );
      }
    }
    if (h % 7 === 0)
      failOpen.push(
        `apiserver_admission_webhook_fail_open_count{name="${name}",type="${type}"} ${round}`,
      );
  }
  out.push(
    "# HELP apiserver_admission_webhook_admission_duration_seconds [STABLE] Admission webhook latency in seconds, identified by name and broken out for each operation and API resource and type (validating or admit) and rejected (true or false).",
    "# TYPE apiserver_admission_webhook_admission_duration_seconds histogram",
    ...hist,
    "# TYPE apiserver_admission_webhook_fail_open_count counter",
    ...failOpen,
    "# TYPE apiserver_admission_webhook_rejection_count counter",
    ...rejections,
    "# TYPE apiserver_admission_webhook_request_total counter",
    ...total,
    "# TYPE apiserver_admission_match_condition_evaluation_errors_total counter",
    ...mcErrors,
  );
  return `${out.join("\n")}\n`;
}

/** The window of every hook: what the Health page needs from two scrapes. */
function windowOf(later: AdmissionMetrics, earlier: AdmissionMetrics): number {
  let sink = 0;
  for (const [key, w] of later.webhooks) {
    const d = webhookDelta(w, earlier.webhooks.get(key));
    sink += histogramQuantile(0.5, d.buckets) ?? 0;
    sink += histogramQuantile(0.9, d.buckets) ?? 0;
    sink += histogramQuantile(0.99, d.buckets) ?? 0;
  }
  return sink;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** Runs the benchmark; one entry per measurement. */
export async function run(): Promise<Array<{ bench: string; value: number; unit: string }>> {
  const texts = [makeScrape(HOOKS, 1), makeScrape(HOOKS, 2)];
  const server = http.createServer((req, res) => {
    const text = texts[req.url === "/1" ? 1 : 0] ?? "";
    res.writeHead(200, { "content-type": "text/plain; version=0.0.4" }).end(text);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    let previous = foldAdmissionMetrics(texts[0] ?? "");
    if (previous.webhooks.size !== HOOKS) {
      throw new Error(`folded ${previous.webhooks.size} hooks, expected ${HOOKS}`);
    }
    let sink = 0;
    const scrape: number[] = [];
    const fold: number[] = [];
    const lines: number[] = [];
    for (let i = 0; i < 24; i++) {
      const t0 = performance.now();
      const text = await (await fetch(`${base}/${i % 2}`)).text();
      const t1 = performance.now();
      const m = foldAdmissionMetrics(text);
      sink += windowOf(m, previous);
      const t2 = performance.now();
      previous = m;
      // Reference: find every line of the same text, nothing more.
      let n = 0;
      for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) n++;
      const t3 = performance.now();
      sink += n;
      if (i >= 4) {
        scrape.push(t2 - t0);
        fold.push(t2 - t1);
        lines.push(t3 - t2);
      }
    }
    if (sink < 0) console.error(sink);
    const r = (x: number) => Math.round(x * 100) / 100;
    return [
      { bench: "metrics-scrape-1k-hooks-ms", value: r(median(scrape)), unit: "ms" },
      { bench: "metrics-fold-1k-hooks-ms", value: r(median(fold)), unit: "ms" },
      { bench: "metrics-scrape-1k-hooks-line-scan-ms", value: r(median(lines)), unit: "ms" },
      {
        bench: "metrics-scrape-1k-hooks-bytes",
        value: Buffer.byteLength(texts[0] ?? ""),
        unit: "bytes",
      },
    ];
  } finally {
    server.close();
  }
}

export const benches = ["metrics-scrape-1k-hooks-ms"];

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
}
