/**
 * predict() for one request against 1,000 varied webhooks, compiled once. Budget: well under
 * 40 µs (100× faster than the apiserver's own dry-run round trip, DESIGN.md).
 */
import { pathToFileURL } from "node:url";
import { compileSnapshot } from "@/lib/admission/compile";
import { predictCompiled } from "@/lib/admission/predict";
import { makeRequests, makeSnapshot } from "./fixtures";

/** Runs the benchmark; one entry per measurement. */
export async function run(): Promise<Array<{ bench: string; value: number; unit: string }>> {
  const compiled = compileSnapshot(makeSnapshot(1000, 10_000));
  const requests = makeRequests(512, 10_000);
  let sink = 0;
  for (let w = 0; w < 20; w++)
    for (const r of requests) sink += predictCompiled(r, compiled).calls.length;
  const samples: number[] = [];
  const batch = 64;
  for (let s = 0; s < 400; s++) {
    const t0 = performance.now();
    for (let k = 0; k < batch; k++) {
      const r = requests[(s * batch + k) % requests.length];
      if (r) sink += predictCompiled(r, compiled).calls.length;
    }
    samples.push(((performance.now() - t0) * 1000) / batch);
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)] ?? NaN;
  if (sink < 0) console.error(sink);
  return [{ bench: "predict-1k-hooks-us", value: Math.round(median * 100) / 100, unit: "us" }];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
}
