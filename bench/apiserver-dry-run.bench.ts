/**
 * The reference for predict's budget, measured in the same run: the real apiserver's dry-run
 * round trip for one request with the same 1,000 webhooks registered (served by a local allow
 * webhook), next to predict() for that very request against what the apiserver stored.
 * Uses the stack named by PORTCULLIS_STACK, or starts a control plane for the run.
 */
import { pathToFileURL } from "node:url";
import { startWebhookServer } from "../cluster/harness/webhook-server";
import { benchStack } from "./bench-stack";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { predictCompiled } from "@/lib/admission/prediction/predict";
import { makeRequest } from "@/lib/admission/model/request";
import { makeSnapshot } from "./fixtures";

type Measurement = { bench: string; value: number; unit: string };

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

/** Runs the benchmark; one entry per measurement. */
export async function run(): Promise<Measurement[]> {
  const stack = await benchStack({ dashboard: false });
  const { info, kube } = stack;
  const hooks = await startWebhookServer({ certFile: info.caFile, keyFile: info.caKeyFile });
  const id = `bench${Date.now().toString(36)}`;
  const snapshot = makeSnapshot(1000, 50);
  const created: string[] = [];
  try {
    const ns = `${id}-ns`;
    await kube("POST", "/api/v1/namespaces", {
      metadata: { name: ns, labels: { team: "payments", env: "prod" } },
    });
    const object = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "bench", namespace: ns, labels: { app: "app-3" } },
      data: { a: "1" },
    };
    const path = `/api/v1/namespaces/${ns}/configmaps?dryRun=All`;
    const roundTrips = async (count: number): Promise<number[]> => {
      for (let i = 0; i < 20; i++) await kube("POST", path, object);
      const rt: number[] = [];
      for (let i = 0; i < count; i++) {
        const t0 = performance.now();
        const res = await kube("POST", path, object);
        rt.push((performance.now() - t0) * 1000);
        if (res.status !== 201) throw new Error(`dry run failed: ${res.status} ${res.body}`);
      }
      return rt;
    };
    // The bare round trip first: the apiserver's own cost for this request, before any hook.
    const bare = await roundTrips(200);
    for (const [kind, list] of [
      ["mutating", snapshot.mutatingWebhookConfigurations ?? []],
      ["validating", snapshot.validatingWebhookConfigurations ?? []],
    ] as const) {
      for (const cfg of list) {
        const name = `${id}-${cfg.metadata?.name ?? ""}`;
        const res = await kube(
          "POST",
          `/apis/admissionregistration.k8s.io/v1/${kind}webhookconfigurations`,
          {
            metadata: { name },
            webhooks: (cfg.webhooks ?? []).map((w) => ({
              ...w,
              // Served by a local allow webhook, and never able to break the cluster.
              clientConfig: { url: hooks.url("allow"), caBundle: hooks.caBundle },
              failurePolicy: "Ignore",
            })),
          },
        );
        if (res.status !== 201) throw new Error(`registering ${name}: ${res.status} ${res.body}`);
        created.push(`${kind}webhookconfigurations/${name}`);
      }
    }
    const [mwc, vwc] = await Promise.all([
      kube("GET", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"),
      kube("GET", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"),
    ]);
    const nsObj = JSON.parse((await kube("GET", `/api/v1/namespaces/${ns}`)).body) as {
      metadata: { labels: Record<string, string> };
    };
    const compiled = compileSnapshot({
      mutatingWebhookConfigurations: (JSON.parse(mwc.body) as { items: never[] }).items,
      validatingWebhookConfigurations: (JSON.parse(vwc.body) as { items: never[] }).items,
      namespaces: { [ns]: nsObj.metadata.labels },
      discovery: snapshot.discovery,
    });
    const request = makeRequest({
      resource: "configmaps",
      kind: { kind: "ConfigMap" },
      operation: "CREATE",
      namespace: ns,
      name: "bench",
      object,
      dryRun: true,
      userInfo: { username: "admin", groups: ["system:masters", "system:authenticated"] },
    });
    const prediction = predictCompiled(request, compiled);
    const matched = prediction.calls.filter((c) => c.round === 0).length;

    // Let the apiserver's informers pick up every configuration, then warm up.
    await new Promise((r) => setTimeout(r, 2000));
    hooks.clearCalls();
    const withHooks = await roundTrips(200);
    const calledPerRequest = hooks.calls().length / 220;

    let sink = 0;
    for (let i = 0; i < 2000; i++) sink += predictCompiled(request, compiled).calls.length;
    const pt: number[] = [];
    for (let s = 0; s < 200; s++) {
      const t0 = performance.now();
      for (let k = 0; k < 50; k++) sink += predictCompiled(request, compiled).calls.length;
      pt.push(((performance.now() - t0) * 1000) / 50);
    }
    if (sink < 0) console.error(sink);
    const apiserverUs = median(bare);
    const predictUs = median(pt);
    return [
      { bench: "apiserver-dry-run-us", value: Math.round(apiserverUs), unit: "us" },
      { bench: "apiserver-dry-run-1k-hooks-us", value: Math.round(median(withHooks)), unit: "us" },
      { bench: "predict-same-request-us", value: Math.round(predictUs * 100) / 100, unit: "us" },
      // Against the bare round trip: the strictest reading of "faster than the dry run".
      {
        bench: "predict-speedup-vs-dry-run",
        value: Math.round(apiserverUs / predictUs),
        unit: "x",
      },
      { bench: "dry-run-hooks-predicted", value: matched, unit: "hooks" },
      {
        bench: "dry-run-hooks-called",
        value: Math.round(calledPerRequest * 10) / 10,
        unit: "hooks",
      },
    ];
  } finally {
    for (const c of created) await kube("DELETE", `/apis/admissionregistration.k8s.io/v1/${c}`);
    await kube("DELETE", `/api/v1/namespaces/${id}-ns`);
    await hooks.close();
    await stack.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
  process.exit(0);
}
