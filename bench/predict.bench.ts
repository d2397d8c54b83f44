/**
 * predict() for one request against 1,000 varied webhooks, compiled once. Budget: well under
 * 40 µs (100× faster than the apiserver's own dry-run round trip, DESIGN.md). Again with a tenth
 * of the configurations static (loaded from manifest directories: first in their plugin, and
 * called for admission configuration writes), and a request mix with such writes: same budget.
 * Also the predict page opened from a hook's link at that size (10,000 namespaces): the search
 * for a request the hook is called for (lib/predict/hook-example.ts), for every 10th hook.
 */
import { pathToFileURL } from "node:url";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { predictCompiled } from "@/lib/admission/prediction/predict";
import { exampleFor } from "@/lib/predict/hook-example";
import { makeRequest, type AdmissionRequest } from "@/lib/admission/model/request";
import { manifestOriginKey, type ManifestOrigin } from "@/lib/admission/model/manifests";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type { CompiledSnapshot } from "@/lib/admission/matching/compile";
import { makeRequests, makeSnapshot } from "./fixtures";

/** The median µs per request over batches of 64, after a warm-up. */
function medianMicros(requests: readonly AdmissionRequest[], compiled: CompiledSnapshot): number {
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
  if (sink < 0) console.error(sink);
  return samples[Math.floor(samples.length / 2)] ?? NaN;
}

/** Every 10th configuration renamed with the reserved suffix and marked static, with its file. */
function withStaticTenth(s: AdmissionSnapshot): AdmissionSnapshot {
  const origins: Record<string, ManifestOrigin> = {};
  const mark = <T extends { metadata?: { name?: string } }>(
    kind: "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration",
    plugin: ManifestOrigin["plugin"],
    list: readonly T[] | undefined,
  ): T[] =>
    (list ?? []).map((c, i) => {
      if (i % 10 !== 0) return c;
      const name = `${c.metadata?.name ?? ""}.static.k8s.io`;
      origins[manifestOriginKey(kind, name)] = {
        kind: "manifest",
        plugin,
        file: `/etc/kubernetes/admission/${plugin}/${name}.yaml`,
      };
      return { ...c, metadata: { ...c.metadata, name } };
    });
  return {
    ...s,
    mutatingWebhookConfigurations: mark(
      "MutatingWebhookConfiguration",
      "MutatingAdmissionWebhook",
      s.mutatingWebhookConfigurations,
    ),
    validatingWebhookConfigurations: mark(
      "ValidatingWebhookConfiguration",
      "ValidatingAdmissionWebhook",
      s.validatingWebhookConfigurations,
    ),
    manifestOrigins: origins,
  };
}

/** Writes of admission configuration, which only static webhooks see. */
function configurationWrites(count: number): AdmissionRequest[] {
  const kinds = [
    ["validatingwebhookconfigurations", "ValidatingWebhookConfiguration"],
    ["mutatingwebhookconfigurations", "MutatingWebhookConfiguration"],
    ["validatingadmissionpolicies", "ValidatingAdmissionPolicy"],
  ] as const;
  return Array.from({ length: count }, (_, i) => {
    const [resource, kind] = kinds[i % kinds.length] as (typeof kinds)[number];
    const name = `w-${i}`;
    return makeRequest({
      group: "admissionregistration.k8s.io",
      resource,
      operation: "CREATE",
      name,
      kind: { kind },
      object: { metadata: { name, labels: { app: `a${i % 7}` } } },
    });
  });
}

/** Runs the benchmark; one entry per measurement. */
export async function run(): Promise<Array<{ bench: string; value: number; unit: string }>> {
  const snapshot = makeSnapshot(1000, 10_000);
  const compiled = compileSnapshot(snapshot);
  const requests = makeRequests(512, 10_000);
  const median = medianMicros(requests, compiled);
  const staticCompiled = compileSnapshot(withStaticTenth(snapshot));
  const staticMedian = medianMicros([...requests, ...configurationWrites(64)], staticCompiled);
  return [
    { bench: "predict-1k-hooks-us", value: Math.round(median * 100) / 100, unit: "us" },
    {
      bench: "predict-1k-hooks-static-us",
      value: Math.round(staticMedian * 100) / 100,
      unit: "us",
    },
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
