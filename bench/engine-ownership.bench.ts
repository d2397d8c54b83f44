/**
 * Recognising the policy engines' ownership of 1,000 hooks and 500 generated admission policies
 * (with their 500 bindings), the engines' own policies read beside them. Budget (issue 56):
 * under 20 ms, warm (the dashboard recomputes it on each change); the first, cold run (one
 * command-line run) is printed beside it. The joins from each engine policy to its carriers are
 * measured apart.
 */
import { pathToFileURL } from "node:url";
import { recogniseOwnership } from "@/lib/admission/engines/ownership";
import { joinEngines } from "@/lib/admission/engines/joins";
import { parseEngineObjects } from "@/lib/admission/engines/sources";
import {
  gatekeeperConstraint,
  gatekeeperGeneratedBinding,
  gatekeeperGeneratedPolicy,
  gatekeeperTemplate,
  gatekeeperValidatingConfiguration,
  kubewardenPolicy,
  kubewardenPolicyConfiguration,
  kyvernoClusterPolicy,
  kyvernoGeneratedBinding,
  kyvernoGeneratedPolicy,
  kyvernoResourceValidatingConfiguration,
} from "@/lib/admission/engines/engine-objects";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";

/** 1,000 hooks: Kyverno's (300 fine-grained), Gatekeeper's, 300 Kubewarden policies', 396 others. */
export function worldForBench(): { snapshot: AdmissionSnapshot; raw: unknown[] } {
  const fine = Array.from({ length: 300 }, (_, i) => `cpol-fine-${i}`);
  const kyverno = kyvernoResourceValidatingConfiguration({
    owner: { name: "kyverno:admission-controller:webhook", uid: "r" },
    fineGrained: fine,
  });
  const kubewarden = Array.from({ length: 300 }, (_, i) =>
    kubewardenPolicyConfiguration({ name: `kw-${i}` }),
  );
  const others = Array.from({ length: 396 }, (_, i) => ({
    metadata: { name: `plain-${i}` },
    webhooks: [
      {
        name: `plain-${i}.example.com`,
        clientConfig: { url: `https://127.0.0.1:9443/${i}` },
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
      },
    ],
  }));
  const templates = Array.from({ length: 250 }, (_, i) => ({
    name: `k8srule${i}`,
    kind: `K8sRule${i}`,
    uid: `t${i}`,
  }));
  const cpols = Array.from({ length: 250 }, (_, i) => ({
    kind: "ClusterPolicy" as const,
    name: `gen-${i}`,
    uid: `k${i}`,
  }));
  const snapshot: AdmissionSnapshot = {
    validatingWebhookConfigurations: [
      kyverno,
      gatekeeperValidatingConfiguration(),
      ...kubewarden,
      ...others,
    ],
    validatingAdmissionPolicies: [
      ...templates.map(gatekeeperGeneratedPolicy),
      ...cpols.map(kyvernoGeneratedPolicy),
    ],
    validatingAdmissionPolicyBindings: [
      ...templates.map((t) =>
        gatekeeperGeneratedBinding({ kind: t.kind, name: `c-${t.name}`, uid: `c${t.uid}` }),
      ),
      ...cpols.map(kyvernoGeneratedBinding),
    ],
  };
  const raw = [
    ...templates.map((t) => gatekeeperTemplate({ ...t, vapState: { state: "generated" } })),
    ...templates.map((t) => gatekeeperConstraint({ kind: t.kind, name: `c-${t.name}` })),
    ...cpols.map((c) => kyvernoClusterPolicy({ name: c.name, uid: c.uid })),
    ...fine.map((name) => kyvernoClusterPolicy({ name })),
    ...Array.from({ length: 300 }, (_, i) => kubewardenPolicy({ name: `kw-${i}` })),
  ];
  return { snapshot, raw };
}

/** Median of 31 runs after 20 warm-up runs (the server recomputes on every change: warm code). */
function median(f: () => number): number {
  let sink = 0;
  for (let w = 0; w < 20; w++) sink += f();
  const samples: number[] = [];
  for (let i = 0; i < 31; i++) {
    const t0 = performance.now();
    sink += f();
    samples.push(performance.now() - t0);
  }
  if (sink < 0) console.error(sink);
  samples.sort((a, b) => a - b);
  return Math.round((samples[Math.floor(samples.length / 2)] ?? NaN) * 100) / 100;
}

export const benches = [
  "engine-ownership-1k-hooks-500-policies-ms",
  "engine-ownership-1k-hooks-500-policies-first-run-ms",
  "engine-joins-1k-hooks-500-policies-ms",
];

/** Runs the benchmark; one entry per measurement. */
export async function run(): Promise<Array<{ bench: string; value: number; unit: string }>> {
  const { snapshot, raw } = worldForBench();
  const hooks = (snapshot.validatingWebhookConfigurations ?? []).reduce(
    (n, c) => n + (c.webhooks?.length ?? 0),
    0,
  );
  if (hooks !== 1000) throw new Error(`the world has ${hooks} hooks, not 1,000`);
  const sources = parseEngineObjects(raw);
  // The first run, cold (what one command-line run pays).
  const t0 = performance.now();
  const ownership = recogniseOwnership(snapshot, sources);
  const first = Math.round((performance.now() - t0) * 100) / 100;
  const recognise = median(() => Object.keys(recogniseOwnership(snapshot, sources).objects).length);
  const joins = median(() => Object.keys(joinEngines(ownership, sources).bySource).length);
  return [
    { bench: "engine-ownership-1k-hooks-500-policies-ms", value: recognise, unit: "ms" },
    { bench: "engine-ownership-1k-hooks-500-policies-first-run-ms", value: first, unit: "ms" },
    { bench: "engine-joins-1k-hooks-500-policies-ms", value: joins, unit: "ms" },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
}
