/**
 * The health report against the real apiserver and real harness webhooks: a fast hook, a slow
 * one near its timeout, one failing open, one whose CA expires in 5 days, one whose Service has no
 * endpoints, one whose caBundle does not match its serving certificate, one serving a SHA-1
 * signed certificate, one whose certificate names another host, and a CRD with a conversion
 * webhook. Each is ranked and flagged for the right reason, and the counts equal the
 * apiserver's own /metrics read in the test.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { policyHeaders } from "../../test/api-headers";
import { createCa } from "../../cluster/certs";
import { httpsRequest } from "../../cluster/https-json";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { startWebhookServer, type WebhookServer } from "../../cluster/harness/webhook-server";
import { foldAdmissionMetrics, webhookKey } from "@/lib/admission/health/metrics";
import type { HealthReport, HealthRow } from "@/lib/api/health";

let stack: StackInfo;
let ca: Buffer;
let hooks: WebhookServer;
let expiring: WebhookServer;
let sha1: WebhookServer;
let wrongSan: WebhookServer;
/** The apiserver's own count of calls to SHA-1 signed webhook backends, before the traffic. */
let sha1Before: number;
let tmp: string;
const id = `hl${Date.now().toString(36)}`;
const ns = `health-${id}`;
const cfg = `health-${id}`;
const crd = `widgets${id}.health.portcullis.test`;

/** `apiserver_webhooks_x509_insecure_sha1_total`, as the apiserver exports it. */
function insecureSha1Total(text: string): number {
  const line = text
    .split("\n")
    .find((l) => l.startsWith("apiserver_webhooks_x509_insecure_sha1_total "));
  return line ? Number(line.split(" ")[1]) : 0;
}

/**
 * The dashboard's report once it has read /metrics after this file's traffic: a dashboard that
 * already scraped serves a scrape up to a few seconds old.
 */
async function reportAfterTraffic(): Promise<HealthReport> {
  let report: HealthReport | undefined;
  await expect
    .poll(
      async () => {
        const res = await fetch(`${stack.dashboardUrl}/api/admission-health`, {
          headers: policyHeaders(stack.contexts.admin),
        });
        expect(res.status).toBe(200);
        report = (await res.json()) as HealthReport;
        return report.rows.find((r) => r.hook === `fast.${id}.portcullis.test`)?.total?.calls;
      },
      { timeout: 30_000, interval: 2_000 },
    )
    .toBe(3);
  return report as HealthReport;
}

function kube(method: string, p: string, body?: unknown) {
  return httpsRequest(`${stack.server}${p}`, { method, body, ca, token: stack.tokens.admin });
}

function hook(
  name: string,
  server: WebhookServer,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name: `${name}.${id}.portcullis.test`,
    clientConfig: { url: server.url(name), caBundle: server.caBundle },
    rules: [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
    ],
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    failurePolicy: "Ignore",
    timeoutSeconds: 2,
    ...extra,
  };
}

beforeAll(async () => {
  stack = readStack();
  ca = readFileSync(stack.caFile);
  tmp = mkdtempSync(path.join(os.tmpdir(), "portcullis-health-"));
  hooks = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
  expiring = await startWebhookServer(createCa(tmp, "expiring-ca", 5));
  // A real SHA-1 signed leaf (openssl x509 -sha1) from the cluster's CA, and a leaf that names
  // only a host the apiserver does not call.
  sha1 = await startWebhookServer(
    { certFile: stack.caFile, keyFile: stack.caKeyFile },
    { digest: "sha1" },
  );
  wrongSan = await startWebhookServer(
    { certFile: stack.caFile, keyFile: stack.caKeyFile },
    { hosts: ["elsewhere.portcullis.test"] },
  );
  sha1.program("sha1", { type: "allow" });
  wrongSan.program("wrong-san", { type: "allow" });
  sha1Before = insecureSha1Total((await kube("GET", "/metrics")).body);
  hooks.program("fast", { type: "allow" });
  hooks.program("slow", { type: "sleep", seconds: 1.4 });
  hooks.program("fail-open", { type: "sleep", seconds: 3 });
  hooks.program("wrong-ca", { type: "allow" });
  expiring.program("expiring", { type: "allow" });
  hooks.program("convert", { type: "allow" });
  expect((await kube("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  // A Service with no endpoints (no selector, no EndpointSlice).
  expect(
    (
      await kube("POST", `/api/v1/namespaces/${ns}/services`, {
        metadata: { name: "empty" },
        spec: { ports: [{ port: 443 }] },
      })
    ).status,
  ).toBe(201);
  const other = createCa(tmp, "unrelated-ca", 30);
  const created = await kube(
    "POST",
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
    {
      metadata: { name: cfg },
      webhooks: [
        hook("fast", hooks),
        hook("slow", hooks),
        hook("fail-open", hooks, { timeoutSeconds: 1 }),
        hook("expiring", expiring),
        hook("wrong-ca", hooks, {
          clientConfig: {
            url: hooks.url("wrong-ca"),
            caBundle: readFileSync(other.certFile).toString("base64"),
          },
        }),
        hook("sha1", sha1),
        hook("wrong-san", wrongSan),
        hook("no-endpoints", hooks, {
          clientConfig: { service: { namespace: ns, name: "empty", port: 443 } },
          // Never called: it intercepts nothing the test creates.
          namespaceSelector: { matchLabels: { "portcullis.test/never": "set" } },
        }),
      ],
    },
  );
  expect(created.status).toBe(201);
  const crdRes = await kube("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
    metadata: { name: crd },
    spec: {
      group: "health.portcullis.test",
      names: { plural: `widgets${id}`, singular: `widget${id}`, kind: `Widget${id}` },
      scope: "Namespaced",
      versions: ["v1", "v2"].map((v, i) => ({
        name: v,
        served: true,
        storage: i === 0,
        schema: {
          openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        },
      })),
      conversion: {
        strategy: "Webhook",
        webhook: {
          conversionReviewVersions: ["v1"],
          clientConfig: { url: hooks.url("convert"), caBundle: hooks.caBundle },
        },
      },
    },
  });
  expect(crdRes.status).toBe(201);
  // Traffic: every hook that intercepts the namespace sees each create.
  for (let i = 0; i < 3; i++) {
    const res = await kube("POST", `/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name: `cm-${i}` },
    });
    expect(res.status).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await kube(
    "DELETE",
    `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${cfg}`,
  );
  await kube("DELETE", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`);
  await kube("DELETE", `/api/v1/namespaces/${ns}`);
  await hooks?.close();
  await expiring?.close();
  await sha1?.close();
  await wrongSan?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe("health report", () => {
  it("ranks and flags each hook for the right reason, with the apiserver's own numbers", async () => {
    const report = await reportAfterTraffic();
    const metrics = foldAdmissionMetrics((await kube("GET", "/metrics")).body);
    expect(report.metricsError).toBeUndefined();
    const row = (name: string): HealthRow => {
      const r = report.rows.find((x) => x.hook === `${name}.${id}.portcullis.test`);
      expect(r, name).toBeDefined();
      return r as HealthRow;
    };
    const reasons = (name: string) => row(name).reasons.map((r) => r.code);

    expect(row("fast").reasons).toEqual([]);
    expect(row("fast").severity).toBe("ok");
    expect(row("fast").probe.status).toBe("ok");
    expect(reasons("slow")).toContain("slow");
    expect(row("slow").latency.p99!).toBeGreaterThan(1);
    expect(reasons("fail-open")).toContain("fails-open");
    expect(reasons("expiring")).toContain("ca-expiring");
    expect(row("expiring").severity).toBe("critical");
    expect(row("expiring").caDaysLeft).toBeLessThanOrEqual(5);
    expect(reasons("no-endpoints")).toContain("no-ready-endpoints");
    expect(reasons("wrong-ca")).toContain("tls-failed");
    expect(row("wrong-ca").probe.status).toBe("tls-failed");
    const conversion = report.rows.find(
      (r) => r.source === "CustomResourceDefinition" && r.configuration === crd,
    );
    expect(conversion?.probe.status).toBe("ok");

    // Worst first.
    const ranks = report.rows.map((r) =>
      ["ok", "info", "medium", "high", "critical"].indexOf(r.severity),
    );
    expect([...ranks].sort((a, b) => b - a)).toEqual(ranks);

    // The counts are the apiserver's own.
    for (const name of ["fast", "slow", "fail-open", "expiring", "wrong-ca"]) {
      const m = metrics.webhooks.get(webhookKey(`${name}.${id}.portcullis.test`, "validating"));
      expect(m, name).toBeDefined();
      expect(row(name).total?.calls, name).toBe(m!.calls);
      expect(row(name).total?.failOpen, name).toBe(m!.failOpen);
      expect(row(name).total?.rejected, name).toBe(m!.rejected);
    }
    expect(row("fast").total?.calls).toBe(3);
    expect(row("fail-open").total?.failOpen).toBe(3);
    // The apiserver could not call the hook whose caBundle does not match either.
    expect(row("wrong-ca").total?.failOpen).toBe(3);
  });

  it("flags a SHA-1 signed serving certificate and a SAN mismatch as the apiserver sees them", async () => {
    const report = await reportAfterTraffic();
    const row = (name: string) =>
      report.rows.find((x) => x.hook === `${name}.${id}.portcullis.test`);
    const text = (await kube("GET", "/metrics")).body;
    const metrics = foldAdmissionMetrics(text);

    // The apiserver refused the SHA-1 certificate on each of the 3 calls and counted it as such.
    expect(insecureSha1Total(text) - sha1Before).toBeGreaterThanOrEqual(3);
    const sha1Metrics = metrics.webhooks.get(
      webhookKey(`sha1.${id}.portcullis.test`, "validating"),
    );
    expect(sha1Metrics?.failOpen).toBe(3);
    const s = row("sha1");
    expect(s?.reasons.map((r) => r.code)).toContain("insecure-sha1");
    expect(s?.reasons.find((r) => r.code === "insecure-sha1")?.severity).toBe("high");
    const served =
      s?.probe.status === "ok" || s?.probe.status === "tls-failed" ? s.probe.served : undefined;
    expect(served?.signatureAlgorithm).toBe("ecdsa-with-SHA1");
    // A SHA-256 leaf from the same CA is not flagged.
    expect(row("fast")?.reasons.map((r) => r.code)).not.toContain("insecure-sha1");

    // The leaf names another host: the probe says so, and the apiserver could not call it either.
    const w = row("wrong-san");
    expect(w?.probe.status).toBe("tls-failed");
    expect(w?.reasons.map((r) => r.code)).toContain("san-mismatch");
    expect(w?.reasons.find((r) => r.code === "san-mismatch")?.message).toContain("127.0.0.1");
    expect(
      metrics.webhooks.get(webhookKey(`wrong-san.${id}.portcullis.test`, "validating"))?.failOpen,
    ).toBe(3);
  });

  it("is refused to a request that names no context", async () => {
    const res = await fetch(`${stack.dashboardUrl}/api/admission-health`, {
      headers: { "sec-fetch-site": "same-origin" },
    });
    expect(res.status).toBe(400);
  });
});
