/**
 * Hooks and policies configured outside the API, inferred by a dashboard from what the real
 * apiserver exposes while their manifest directories are withheld from it (a second dashboard,
 * started without PORTCULLIS_ADMISSION_MANIFESTS, reading the stack's decision store): the local control
 * plane loads a static set (one webhook configuration or policy with its binding per plugin,
 * cluster/admission-config/manifests.ts) that no list shows; a labelled ConfigMap brings them into
 * play, and GET /api/outside-api must name each from the apiserver's metrics and audit events,
 * with the apiserver's own counts and the hashes of the sets it reports in force.
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { policyHeaders } from "../../test/api-headers";
import { httpsRequest } from "../../cluster/https-json";
import { dashboardEnv, readStack, type StackInfo } from "../../cluster/harness/stack";
import { startDashboard, type DashboardProcess } from "../../test/dashboard-process";
import { STATIC_SCOPE_LABEL, manifestHashesInForce } from "../../cluster/harness/static-manifests";
import { foldAdmissionMetrics, webhookKey } from "@/lib/admission/health/metrics";
import type { OutsideApiResponse } from "@/lib/api/outside-api";

let stack: StackInfo;
let ca: Buffer;
/** The dashboard without the manifest directories. */
let blind: DashboardProcess;
const id = `oa${Date.now().toString(36)}`;
const ns = `outside-api-${id}`;

function kube(method: string, p: string, body?: unknown) {
  return httpsRequest(`${stack.server}${p}`, { method, body, ca, token: stack.tokens.admin });
}

const configMap = (name: string, data: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, labels: { [STATIC_SCOPE_LABEL]: "on" } },
  data,
});

async function outsideApi(dashboardUrl: string): Promise<OutsideApiResponse> {
  const base = dashboardUrl.replace(/\/$/, "");
  const headers = policyHeaders(stack.contexts.admin);
  // The dashboard reads /metrics now rather than at its next 15 s tick.
  const scrape = await fetch(`${base}/api/test-hooks/metrics-scrape`, {
    method: "POST",
    headers,
  });
  expect(scrape.status).toBe(200);
  const res = await fetch(`${base}/api/outside-api`, { headers });
  expect(res.status).toBe(200);
  return (await res.json()) as OutsideApiResponse;
}

beforeAll(async () => {
  stack = readStack();
  ca = readFileSync(stack.caFile);
  // The stack's dashboard is given the manifest directories; this one is not.
  const env = { ...dashboardEnv(stack) };
  delete env.PORTCULLIS_ADMISSION_MANIFESTS;
  blind = await startDashboard(env);
  const created = await kube("POST", "/api/v1/namespaces", {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: ns },
  });
  expect(created.status).toBe(201);
  return async () => {
    await blind.kill("SIGTERM");
    await kube("DELETE", `/api/v1/namespaces/${ns}`);
  };
});

describe("hooks and policies configured outside the API", () => {
  it("are absent from every list, named from metrics and audit events once called, and counted as the apiserver counts them", async () => {
    for (const resource of [
      "mutatingwebhookconfigurations",
      "validatingwebhookconfigurations",
      "validatingadmissionpolicies",
      "mutatingadmissionpolicies",
    ]) {
      const list = await kube("GET", `/apis/admissionregistration.k8s.io/v1/${resource}`);
      expect(list.status).toBe(200);
      const names = (JSON.parse(list.body) as { items: Array<{ metadata: { name: string } }> })
        .items;
      expect(names.map((o) => o.metadata.name)).not.toContain("seed.static.k8s.io");
    }
    const get = await kube(
      "GET",
      "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/seed.static.k8s.io",
    );
    expect(get.status).toBe(404);

    // Admitted: the static mutating policy stamps it; both static webhooks are called, fail
    // (nothing listens on their URL) and are ignored.
    const admitted = await kube(
      "POST",
      `/api/v1/namespaces/${ns}/configmaps`,
      configMap(`${id}-a`),
    );
    expect(admitted.status).toBe(201);
    expect(JSON.parse(admitted.body).metadata.annotations).toMatchObject({
      "portcullis.dev/static-seed": "stamped",
    });
    // Denied by the static validating policy.
    const denied = await kube(
      "POST",
      `/api/v1/namespaces/${ns}/configmaps`,
      configMap(`${id}-d`, { "static-deny": "yes" }),
    );
    expect(denied.status).toBe(422);
    expect(denied.body).toContain("seed.static.k8s.io");

    const expected = [
      "MutatingAdmissionPolicy/seed.static.k8s.io",
      "MutatingAdmissionWebhook/seed-mutate.portcullis.dev",
      "ValidatingAdmissionPolicy/seed.static.k8s.io",
      "ValidatingAdmissionWebhook/seed-validate.portcullis.dev",
    ];
    // Other tests may load static objects of their own meanwhile: these four are looked for.
    // A mutating policy's mutation leaves no audit annotation: it is seen in metrics alone.
    const audited = expected.filter((k) => !k.startsWith("MutatingAdmissionPolicy/"));
    let report: OutsideApiResponse | undefined;
    await expect
      .poll(
        async () => {
          report = await outsideApi(blind.url);
          const keys = (hooks: OutsideApiResponse["hooks"]) =>
            hooks.map((h) => `${h.plugin}/${h.name}`).filter((k) => expected.includes(k));
          return {
            hooks: keys(report.hooks),
            // The audit events reach the dashboard in batches of about a second.
            audited: keys(report.hooks.filter((h) => h.seenIn.includes("audit"))),
          };
        },
        { timeout: 30_000, interval: 500 },
      )
      .toEqual({ hooks: expected, audited });
    const r = report as OutsideApiResponse;
    expect(r.sentence).toBe(`${r.hooks.length} hooks or policies are configured outside the API.`);
    expect(r.metricsError).toBeUndefined();
    expect(r.decisionsError).toBeUndefined();
    const byKey = new Map(r.hooks.map((h) => [`${h.plugin}/${h.name}`, h]));

    // Policies are named with their reserved suffix in their metrics and their decisions.
    expect(byKey.get("ValidatingAdmissionPolicy/seed.static.k8s.io")).toMatchObject({
      parents: ["seed.static.k8s.io"],
      evidence: "reserved-name",
      seenIn: ["metrics", "audit"],
    });
    expect(byKey.get("MutatingAdmissionPolicy/seed.static.k8s.io")).toMatchObject({
      parents: ["seed.static.k8s.io"],
      evidence: "reserved-name",
      seenIn: ["metrics"],
    });
    // The mutating webhook's audit annotation names its static configuration.
    expect(byKey.get("MutatingAdmissionWebhook/seed-mutate.portcullis.dev")).toMatchObject({
      parents: ["seed.static.k8s.io"],
      evidence: "reserved-name",
      seenIn: ["metrics", "audit"],
    });
    // The validating webhook's metrics and its failed-open annotation carry its name only:
    // unknown to the API, in a plugin that loads manifests.
    expect(byKey.get("ValidatingAdmissionWebhook/seed-validate.portcullis.dev")).toMatchObject({
      evidence: "unknown-name",
    });

    // The counts are the apiserver's own: read here just before and just after the dashboard
    // reads /metrics once more (other tests' traffic may reach the static hooks meanwhile).
    const scrapeHere = async () => foldAdmissionMetrics((await kube("GET", "/metrics")).body);
    const before = await scrapeHere();
    const again = new Map(
      (await outsideApi(blind.url)).hooks.map((h) => [`${h.plugin}/${h.name}`, h]),
    );
    const after = await scrapeHere();
    // Both writes above reached the mutating webhook; the denied one was refused by the static
    // validating policy, whose plugin runs before the validating webhooks, so that webhook was
    // called once.
    for (const [type, plugin, name, least] of [
      ["admit", "MutatingAdmissionWebhook", "seed-mutate.portcullis.dev", 2],
      ["validating", "ValidatingAdmissionWebhook", "seed-validate.portcullis.dev", 1],
    ] as const) {
      const m0 = before.webhooks.get(webhookKey(name, type));
      const m1 = after.webhooks.get(webhookKey(name, type));
      expect(m0?.calls, name).toBeGreaterThanOrEqual(least);
      const h = again.get(`${plugin}/${name}`);
      expect(h?.calls).toBeGreaterThanOrEqual(m0?.calls ?? Infinity);
      expect(h?.calls).toBeLessThanOrEqual(m1?.calls ?? -Infinity);
      // Every call failed (nothing listens) and was let through: failed open.
      expect(h?.errors).toBeGreaterThanOrEqual(m0?.failOpen ?? Infinity);
      expect(h?.errors).toBeLessThanOrEqual(m1?.failOpen ?? -Infinity);
      expect(h?.firstSeen).toBeDefined();
      expect(h?.lastSeen).toBeDefined();
    }

    // Each plugin's set in force, with the hash the apiserver reports for it.
    const hashes = await manifestHashesInForce(stack);
    expect(r.plugins.map((p) => p.plugin)).toEqual([
      "MutatingAdmissionPolicy",
      "MutatingAdmissionWebhook",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionWebhook",
    ]);
    for (const p of r.plugins) {
      expect(p.hashes).toEqual([hashes[p.plugin]]);
      expect(p.loads).toBeGreaterThanOrEqual(1);
    }

    // The stack's dashboard reads the directories: it shows these objects whole (with their
    // files), never as inferred.
    const seeing = await outsideApi(stack.dashboardUrl);
    expect(
      seeing.hooks.map((h) => `${h.plugin}/${h.name}`).filter((k) => expected.includes(k)),
    ).toEqual([]);
    expect(seeing.plugins).toHaveLength(4);
  });
});
