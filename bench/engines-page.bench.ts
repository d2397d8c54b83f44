/**
 * The Engines page at 1,000 hooks and 500 generated admission policies (with their 500
 * bindings), the engines' own policies read beside them: the report the server joins
 * (recognition, joins, call order; engines-report-1k-hooks-500-policies-ms) and the page's first
 * render of it, the React tree rendered to HTML as the server render does
 * (engines-page-first-render-ms). Budget (issue 56): the first render under 500 ms.
 */
import { pathToFileURL } from "node:url";
import { parseEngineObjects } from "@/lib/admission/engines/sources";
import { worldForBench } from "./engine-ownership.bench";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import { buildEnginesReport, type ServedEngineKind } from "@/lib/engines/report";
import type { EnginesData } from "@/lib/api/engines";

type Measurement = { bench: string; value: number; unit: string };

export const benches = ["engines-report-1k-hooks-500-policies-ms", "engines-page-first-render-ms"];

/** The ownership bench's world (1,000 hooks, 500 generated policies), with no namespaces. */
function world(): { snapshot: AdmissionSnapshot; raw: unknown[] } {
  const { snapshot, raw } = worldForBench();
  return { snapshot: { namespaces: {}, ...snapshot }, raw };
}

const SERVED: ServedEngineKind[] = [
  {
    engine: "gatekeeper",
    group: "templates.gatekeeper.sh",
    version: "v1",
    kind: "ConstraintTemplate",
    resource: "constrainttemplates",
    namespaced: false,
  },
  {
    engine: "kyverno",
    group: "kyverno.io",
    version: "v1",
    kind: "ClusterPolicy",
    resource: "clusterpolicies",
    namespaced: false,
  },
  {
    engine: "kubewarden",
    group: "policies.kubewarden.io",
    version: "v1",
    kind: "ClusterAdmissionPolicy",
    resource: "clusteradmissionpolicies",
    namespaced: false,
  },
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

/** Runs the benchmark; one entry per measurement. */
export async function run(): Promise<Measurement[]> {
  // React's production build, as the dashboard serves it (chosen when React is first loaded;
  // the development build is several times slower).
  (process.env as Record<string, string>).NODE_ENV = "production";
  const { createElement } = await import("react");
  const { renderToString } = await import("react-dom/server");
  const { EnginesView } = await import("@/components/engines/engines-page");
  const { snapshot, raw } = world();
  const hooks = (snapshot.validatingWebhookConfigurations ?? []).reduce(
    (n, c) => n + (c.webhooks?.length ?? 0),
    0,
  );
  if (hooks < 1000) throw new Error(`the world has ${hooks} hooks, not 1,000`);
  const report = (): EnginesData => ({
    readAt: "2026-01-01T00:00:00Z",
    engines: buildEnginesReport(
      snapshot,
      SERVED,
      parseEngineObjects(raw),
      undefined,
      undefined,
      snapshot,
    ),
    notices: [],
  });
  let sink = 0;
  for (let w = 0; w < 2; w++) sink += report().engines.length;
  const joins: number[] = [];
  let data = report();
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    data = report();
    joins.push(performance.now() - t0);
  }
  for (let w = 0; w < 2; w++) sink += renderToString(createElement(EnginesView, { data })).length;
  const renders: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    sink += renderToString(createElement(EnginesView, { data })).length;
    renders.push(performance.now() - t0);
  }
  if (sink < 0) console.error(sink);
  if (process.env.ENGINES_BENCH_STATS) {
    for (const e of data.engines)
      console.error(
        e.engine,
        e.sources.length,
        e.hooks.length,
        e.policies.length,
        e.hooks.reduce((n, h) => n + h.ownership.sources.length, 0),
        e.sources.reduce((n, x) => n + x.webhooks.length + x.generatedPolicies.length, 0),
      );
    console.error("html", renderToString(createElement(EnginesView, { data })).length);
  }
  const round = (x: number) => Math.round(x * 10) / 10;
  return [
    { bench: "engines-report-1k-hooks-500-policies-ms", value: round(median(joins)), unit: "ms" },
    { bench: "engines-page-first-render-ms", value: round(median(renders)), unit: "ms" },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
}
