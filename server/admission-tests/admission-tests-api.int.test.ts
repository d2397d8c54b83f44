/**
 * /api/admission-tests against the real apiserver and the stack's dashboard: a harness webhook
 * the apiserver calls, its decision (through the audit sink) kept as a case, listed, replayed
 * against an edit that narrows the webhook's namespaceSelector (the case and the feed's requests
 * reported newly skipped) and against the live version (nothing changes), then forgotten; the
 * viewer, who may not read decisions, is refused.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { policyHeaders } from "../../test/api-headers";
import { httpsRequest } from "../../cluster/https-json";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { startWebhookServer, type WebhookServer } from "../../cluster/harness/webhook-server";
import type { DecisionListResponse } from "@/lib/api/decisions";
import type { CaseListResponse, ReplayResponse, StoredCase } from "@/lib/api/admission-tests";
import { parseTestFile } from "@/lib/admission/testing/format";
import { suiteText } from "@/lib/replay/download";

let stack: StackInfo;
let ca: Buffer;
let hooks: WebhookServer;
const id = `at${Date.now().toString(36)}`;
const ns = `admission-tests-${id}`;
const cfg = `admission-tests-${id}`;
const hook = `cm.${id}.portcullis.test`;
const R = "mutatingwebhookconfigurations";
const ADM = "/apis/admissionregistration.k8s.io/v1";

function kube(method: string, p: string, body?: unknown) {
  return httpsRequest(`${stack.server}${p}`, { method, body, ca, token: stack.tokens.admin });
}

async function api<T>(
  method: string,
  p: string,
  body?: unknown,
  user: "admin" | "viewer" = "admin",
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${stack.dashboardUrl}${p}`, {
    method,
    headers: {
      ...policyHeaders(stack.contexts[user]),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as T };
}

const config = (extraLabels: Record<string, string> = {}) => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "MutatingWebhookConfiguration",
  metadata: { name: cfg },
  webhooks: [
    {
      name: hook,
      admissionReviewVersions: ["v1"],
      sideEffects: "None",
      clientConfig: { url: hooks.url(hook), caBundle: hooks.caBundle },
      rules: [
        { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
      ],
      namespaceSelector: {
        matchLabels: { "kubernetes.io/metadata.name": ns, ...extraLabels },
      },
      timeoutSeconds: 5,
    },
  ],
});

/** Waits until `fn` returns a value (on state, with vitest's waitFor). */
function until<T>(fn: () => Promise<T | undefined>, what: string, ms = 30_000): Promise<T> {
  return vi.waitFor(
    async () => {
      const v = await fn();
      if (v === undefined) throw new Error(`never: ${what}`);
      return v;
    },
    { timeout: ms, interval: 200 },
  );
}

let decisionId = 0;

beforeAll(async () => {
  stack = readStack();
  ca = readFileSync(stack.caFile);
  hooks = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
  hooks.program(hook, { type: "allow" });
  expect((await kube("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  expect((await kube("POST", `${ADM}/${R}`, config())).status).toBe(201);
  // ConfigMaps until the apiserver calls the webhook (a new configuration takes a moment).
  await until(async () => {
    const res = await kube("POST", `/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name: `cm-${Date.now().toString(36)}` },
    });
    expect(res.status).toBe(201);
    return hooks.calls(hook).length > 0 ? true : undefined;
  }, "the webhook is called");
  // Its decision, through the audit sink into the store.
  decisionId = await until(async () => {
    const r = await api<DecisionListResponse>(
      "GET",
      `/api/decisions?hook=${encodeURIComponent(hook)}&namespace=${ns}`,
    );
    return r.body.items?.[0]?.id;
  }, "the decision is stored");
});

afterAll(async () => {
  await kube("DELETE", `${ADM}/${R}/${cfg}`);
  await kube("DELETE", `/api/v1/namespaces/${ns}`);
  await hooks?.close();
});

describe("admission test cases from traffic", () => {
  let kept: StoredCase;

  it("keeps a decision as a case for its configuration, in the test file format", async () => {
    const res = await api<StoredCase>("POST", "/api/admission-tests", { decision: decisionId });
    expect(res.status).toBe(200);
    kept = res.body;
    expect(kept.owner).toEqual({ resource: R, name: cfg });
    expect(kept.case).toMatchObject({
      source: { from: "decision", configuration: stack.contexts.admin },
      request: { operation: "CREATE", resource: "/v1/configmaps", namespace: ns },
      expect: { calls: [`MutatingWebhookConfiguration/${cfg}/${hook}`] },
    });
    expect(kept.case.request.namespaceLabels).toMatchObject({
      "kubernetes.io/metadata.name": ns,
    });
    // The downloaded file reads back as the same case.
    const back = parseTestFile(suiteText([kept.case], cfg));
    expect(back.ok && back.cases[0]?.case).toEqual(kept.case);

    const list = await api<CaseListResponse>(
      "GET",
      `/api/admission-tests?resource=${R}&name=${cfg}`,
    );
    expect(list.body.cases.map((c) => c.id)).toEqual([kept.id]);
    const one = await api<StoredCase>("GET", `/api/admission-tests/${kept.id}`);
    expect(one.body).toEqual(kept);
  });

  it("replays an edit narrowing the selector: the case and the feed's requests no longer call the webhook", async () => {
    const res = await api<ReplayResponse>("POST", "/api/admission-tests/replay", {
      resource: R,
      name: cfg,
      object: config({ env: "prod" }),
    });
    expect(res.status).toBe(200);
    const r = res.body;
    expect(r.feedRead).toBe(true);
    expect(r.replayed.cases).toBe(1);
    expect(r.replayed.feed).toBeGreaterThanOrEqual(1);
    expect(r.changedCount).toBe(r.replayed.cases + r.replayed.feed);
    expect(r.groups).toEqual([
      expect.objectContaining({
        kind: "newly-skipped",
        hook: expect.objectContaining({ label: `MutatingWebhookConfiguration ${cfg} / ${hook}` }),
        operation: "CREATE",
        resource: "configmaps",
        namespace: ns,
        count: r.changedCount,
      }),
    ]);
    const fromCase = r.changed.find((c) => c.id === `case:${kept.id}`);
    expect(fromCase?.changes[0]?.reason).toContain(`does not match namespace ${ns}`);
    expect(r.currentLabels).toBe(r.replayed.feed);

    const limited = await api<ReplayResponse>("POST", "/api/admission-tests/replay", {
      resource: R,
      name: cfg,
      object: config({ env: "prod" }),
      limit: 0,
    });
    expect(limited.body.replayed).toEqual({ cases: 1, feed: 0 });

    const same = await api<ReplayResponse>("POST", "/api/admission-tests/replay", {
      resource: R,
      name: cfg,
      object: config(),
    });
    expect(same.body.changedCount).toBe(0);
  });

  it("refuses an identity that may not read decisions", async () => {
    const res = await api<{ status: number }>(
      "POST",
      "/api/admission-tests/replay",
      { resource: R, name: cfg, object: config() },
      "viewer",
    );
    expect(res.status).toBe(403);
    const list = await api<{ status: number }>(
      "GET",
      `/api/admission-tests?resource=${R}&name=${cfg}`,
      undefined,
      "viewer",
    );
    expect(list.status).toBe(403);
  });

  it("forgets the case", async () => {
    const res = await api<{ deleted: true }>("DELETE", `/api/admission-tests/${kept.id}`);
    expect(res.body).toEqual({ deleted: true });
    expect((await api("GET", `/api/admission-tests/${kept.id}`)).status).toBe(404);
    expect((await api("DELETE", `/api/admission-tests/${kept.id}`)).status).toBe(404);
  });
});
