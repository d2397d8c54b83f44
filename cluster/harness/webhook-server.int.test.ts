/**
 * The harness webhooks are called by the real apiserver, and the audit event of the request
 * reaches the dashboard's /api/audit through the apiserver's audit webhook backend.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { policyHeaders } from "../../test/api-headers";
import { readStack, type StackInfo } from "./stack";
import { startWebhookServer, type WebhookServer } from "./webhook-server";
import { httpsRequest } from "../https-json";
import type { DecisionRecord } from "@/lib/admission/audit/audit";

let stack: StackInfo;
let hooks: WebhookServer;
let ca: Buffer;
const id = `h${Date.now().toString(36)}`;
const ns = `int-${id}`;

function kube(method: string, path: string, body?: unknown) {
  return httpsRequest(`${stack.server}${path}`, { method, body, ca, token: stack.tokens.admin });
}

/** A hook served at path `name`, intercepting configmaps labelled with case `testCase`. */
function hook(name: string, extra: Record<string, unknown> = {}, testCase = name) {
  return {
    name: `${name}.${id}.portcullis.test`,
    clientConfig: { url: hooks.url(name), caBundle: hooks.caBundle },
    rules: [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
    ],
    objectSelector: { matchLabels: { "portcullis.test/case": testCase } },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    timeoutSeconds: 2,
    ...extra,
  };
}

function configMap(name: string, testCase: string) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, labels: { "portcullis.test/case": testCase } },
    data: { a: "1" },
  };
}

beforeAll(async () => {
  stack = readStack();
  ca = readFileSync(stack.caFile);
  hooks = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
  expect((await kube("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  hooks.program("patch", {
    type: "patch",
    patch: [{ op: "add", path: "/metadata/labels/patched-by", value: "harness" }],
  });
  hooks.program("deny", { type: "deny", message: "harness says no" });
  hooks.program("slow-ignore", { type: "sleep", seconds: 4 });
  hooks.program("slow-fail", { type: "sleep", seconds: 4 });
  const mwc = await kube(
    "POST",
    "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
    {
      metadata: { name: `${id}-mutating` },
      webhooks: [hook("patch")],
    },
  );
  expect(mwc.status, mwc.body).toBe(201);
  const vwc = await kube(
    "POST",
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
    {
      metadata: { name: `${id}-validating` },
      webhooks: [
        hook("patch-check", {}, "patch"),
        hook("deny"),
        hook("slow-ignore", { failurePolicy: "Ignore", timeoutSeconds: 1 }),
        hook("slow-fail", { failurePolicy: "Fail", timeoutSeconds: 1 }),
      ].map((h, i) => ({ ...h, name: `v${i}-${h.name}` })),
    },
  );
  expect(vwc.status, vwc.body).toBe(201);
  // The apiserver picks up new configurations through its informers, a moment after they are
  // created: dry-run probes until both configurations' "patch" hooks are called.
  const deadline = Date.now() + 20_000;
  while (hooks.calls("patch").length === 0 || hooks.calls("patch-check").length === 0) {
    if (Date.now() > deadline) throw new Error("the apiserver never called the harness hooks");
    await kube(
      "POST",
      `/api/v1/namespaces/${ns}/configmaps?dryRun=All`,
      configMap(`probe-${Date.now()}`, "patch"),
    );
    await new Promise((r) => setTimeout(r, 100));
  }
  hooks.clearCalls();
});

afterAll(async () => {
  await kube(
    "DELETE",
    `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${id}-mutating`,
  );
  await kube(
    "DELETE",
    `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${id}-validating`,
  );
  await kube("DELETE", `/api/v1/namespaces/${ns}`);
  await hooks.close();
});

/** The stored decisions of one request, read back through the dashboard's decision API. */
async function auditDecisions(auditID: string): Promise<DecisionRecord[]> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const res = await fetch(
      `${stack.dashboardUrl}/api/decisions?auditID=${encodeURIComponent(auditID)}`,
      { headers: policyHeaders(stack.contexts.admin) },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { items: DecisionRecord[] };
    const found = body.items.filter((d) => d.stage === "ResponseComplete");
    if (found.length > 0) return found;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`audit event ${auditID} never reached the dashboard's /api/audit`);
}

describe("harness webhooks against the real apiserver", () => {
  it("records the calls the apiserver made, applies the patch, and the audit event reaches /api/audit", async () => {
    hooks.clearCalls();
    const res = await kube(
      "POST",
      `/api/v1/namespaces/${ns}/configmaps`,
      configMap("patched", "patch"),
    );
    expect(res.status, res.body).toBe(201);
    expect(
      (JSON.parse(res.body) as { metadata: { labels: Record<string, string> } }).metadata.labels[
        "patched-by"
      ],
    ).toBe("harness");

    // The mutating hook, then the validating hook, each once.
    const calls = hooks.calls();
    expect(calls.map((c) => c.hook)).toEqual(["patch", "patch-check"]);
    expect(calls.map((c) => c.request.operation)).toEqual(["CREATE", "CREATE"]);
    expect(calls[0]?.request.namespace).toBe(ns);
    expect(calls[0]?.request.name).toBe("patched");
    // The validating hook sees the object after mutation.
    expect(
      (calls[1]?.request.object as { metadata: { labels: Record<string, string> } }).metadata
        .labels["patched-by"],
    ).toBe("harness");

    const auditID = res.headers["audit-id"];
    expect(typeof auditID).toBe("string");
    const decisions = await auditDecisions(auditID as string);
    expect(decisions).toEqual([
      expect.objectContaining({
        kind: "mutating-webhook",
        configuration: `${id}-mutating`,
        hook: `patch.${id}.portcullis.test`,
        round: 0,
        outcome: "mutated",
        auditID,
      }),
    ]);
    expect(decisions[0]?.request.code).toBe(201);
    // ConfigMaps are audited at Metadata level here, so the event names the call but not its patch.
    expect(decisions[0]?.patch).toBeUndefined();
  });

  it("denies with the webhook's message", async () => {
    const res = await kube(
      "POST",
      `/api/v1/namespaces/${ns}/configmaps`,
      configMap("denied", "deny"),
    );
    expect(res.status).toBe(403);
    expect(res.body).toContain(
      `admission webhook \\"v1-deny.${id}.portcullis.test\\" denied the request: harness says no`,
    );
    expect(hooks.calls("deny")).toHaveLength(1);
    const gone = await kube("GET", `/api/v1/namespaces/${ns}/configmaps/denied`);
    expect(gone.status).toBe(404);
  });

  it("fails open past timeoutSeconds with Ignore and closed with Fail", async () => {
    const open = await kube(
      "POST",
      `/api/v1/namespaces/${ns}/configmaps`,
      configMap("slow-open", "slow-ignore"),
    );
    expect(open.status, open.body).toBe(201);
    const auditID = open.headers["audit-id"] as string;
    expect(await auditDecisions(auditID)).toEqual([
      expect.objectContaining({
        kind: "validating-webhook",
        outcome: "failed-open",
        hook: `v2-slow-ignore.${id}.portcullis.test`,
      }),
    ]);

    const closed = await kube(
      "POST",
      `/api/v1/namespaces/${ns}/configmaps`,
      configMap("slow-closed", "slow-fail"),
    );
    expect(closed.status).toBe(500);
    expect(closed.body).toContain(
      `failed calling webhook \\"v3-slow-fail.${id}.portcullis.test\\"`,
    );
    expect(await auditDecisions(closed.headers["audit-id"] as string)).toEqual([
      expect.objectContaining({
        hook: `v3-slow-fail.${id}.portcullis.test`,
        outcome: "timeout",
        code: 500,
      }),
    ]);
  });

  it("refuses audit batches without the sink's token", async () => {
    const res = await fetch(`${stack.dashboardUrl}/api/audit`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer wrong" },
      body: JSON.stringify({ kind: "EventList", items: [] }),
    });
    expect(res.status).toBe(401);
  });
});
