/**
 * predict() for one request against 1,000 varied webhooks, compiled once. Budget: well under
 * 40 µs (100× faster than the apiserver's own dry-run round trip, DESIGN.md).
 * Also the predict page opened from a hook's link at that size (10,000 namespaces): the search
 * for a request the hook is called for (lib/predict/hook-example.ts), for every 10th hook.
 */
import { pathToFileURL } from "node:url";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { predictCompiled } from "@/lib/admission/prediction/predict";
import { exampleFor } from "@/lib/predict/hook-example";
import { makeRequests, makeSnapshot } from "./fixtures";

/** Runs the benchmark; one entry per measurement. */
export async function run(): Promise<Array<{ bench: string; value: number; unit: string }>> {
  const snapshot = makeSnapshot(1000, 10_000);
  const compiled = compileSnapshot(snapshot);
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
  return [
    { bench: "predict-1k-hooks-us", value: Math.round(median * 100) / 100, unit: "us" },
    ...hookExamples(snapshot, compiled),
  ];
}

/** Milliseconds to find each sampled hook's example: the median and the slowest. */
function hookExamples(
  snapshot: ReturnType<typeof makeSnapshot>,
  compiled: ReturnType<typeof compileSnapshot>,
): Array<{ bench: string; value: number; unit: string }> {
  const live = {
    compiled,
    discovery: snapshot.discovery ?? [],
    namespaces: snapshot.namespaces ?? {},
    identity: { username: "admin", groups: ["system:masters"] },
  };
  const hooks = [...compiled.mutating, ...compiled.validating].filter((_, i) => i % 10 === 0);
  const ms: number[] = [];
  let called = 0;
  for (const h of hooks) {
    const t0 = performance.now();
    const ex = exampleFor(
      { source: h.id.source, configuration: h.id.configuration, name: h.id.name },
      live,
    );
    ms.push(performance.now() - t0);
    if (ex.found && ex.called) called++;
  }
  ms.sort((a, b) => a - b);
  const round = (v: number) => Math.round(v * 10) / 10;
  return [
    {
      bench: "predict-hook-example-1k-hooks-median-ms",
      value: round(ms[ms.length >> 1] ?? NaN),
      unit: "ms",
    },
    {
      bench: "predict-hook-example-1k-hooks-max-ms",
      value: round(ms[ms.length - 1] ?? NaN),
      unit: "ms",
    },
    {
      bench: "predict-hook-example-1k-hooks-called-pct",
      value: Math.round((100 * called) / hooks.length),
      unit: "%",
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
}
