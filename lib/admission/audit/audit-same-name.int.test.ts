/**
 * A webhook name in a mutating and a validating configuration (cert-manager's is), against the
 * real apiserver: the mutating call admits, the validating one times out and the request is
 * refused. The feed must read the timeout as the validating webhook's (the validating phase's
 * latency annotation shows it began), not as the mutating call's, which admitted.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { httpsRequest } from "../../../cluster/https-json";
import { completedAuditEvent, readStack, type StackInfo } from "../../../cluster/harness/stack";
import { startWebhookServer, type WebhookServer } from "../../../cluster/harness/webhook-server";
import { parseAuditEvent } from "./audit";

let stack: StackInfo;
let ca: Buffer;
let hooks: WebhookServer;
const id = `same${Date.now().toString(36)}`;
const ns = id;
const name = `webhook.${id}.portcullis.test`;
const ADM = "/apis/admissionregistration.k8s.io/v1";

function kube(method: string, p: string, body?: unknown) {
  return httpsRequest(`${stack.server}${p}`, {
    method,
    body,
    ca,
    token: stack.tokens.admin,
    timeoutMs: 30_000,
  });
}

const hook = (target: string, extra: Record<string, unknown> = {}) => ({
  name,
  clientConfig: { url: hooks.url(target), caBundle: hooks.caBundle },
  rules: [
    { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
  ],
  namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
  sideEffects: "None",
  admissionReviewVersions: ["v1"],
  failurePolicy: "Fail",
  ...extra,
});

beforeAll(async () => {
  stack = readStack();
  ca = readFileSync(stack.caFile);
  hooks = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
  hooks.program("mutating", { type: "allow" });
  hooks.program("validating", { type: "sleep", seconds: 3 });
  expect((await kube("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  expect(
    (
      await kube("POST", `${ADM}/mutatingwebhookconfigurations`, {
        metadata: { name: `${id}-mutating` },
        webhooks: [hook("mutating", { reinvocationPolicy: "Never" })],
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await kube("POST", `${ADM}/validatingwebhookconfigurations`, {
        metadata: { name: `${id}-validating` },
        webhooks: [hook("validating", { timeoutSeconds: 1 })],
      })
    ).status,
  ).toBe(201);
});

afterAll(async () => {
  await kube("DELETE", `${ADM}/mutatingwebhookconfigurations/${id}-mutating`).catch(() => null);
  await kube("DELETE", `${ADM}/validatingwebhookconfigurations/${id}-validating`).catch(() => null);
  await kube("DELETE", `/api/v1/namespaces/${ns}`).catch(() => null);
  await hooks?.close();
});

it("reads a same-named validating webhook's timeout as its own, the mutating call as admitted", async () => {
  // Retried until both configurations are in effect: the mutating call is then recorded too.
  const deadline = Date.now() + 30_000;
  for (let n = 0; ; n++) {
    const res = await kube("POST", `/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name: `cm-${n}` },
    });
    const auditID = res.headers["audit-id"];
    if (typeof auditID !== "string") throw new Error("the apiserver sent no Audit-Id");
    const event = res.status === 500 ? await completedAuditEvent(stack, auditID) : undefined;
    const parsed = event ? parseAuditEvent(event) : undefined;
    const mutatingCalled = parsed?.decisions.some((d) => d.kind === "mutating-webhook");
    if ((!mutatingCalled || res.status !== 500) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 300));
      continue;
    }
    expect(res.status).toBe(500);
    expect(res.body).toContain(`failed calling webhook \\"${name}\\"`);
    expect(parsed?.decisions.map((d) => [d.kind, d.hook, d.configuration, d.outcome])).toEqual([
      ["mutating-webhook", name, `${id}-mutating`, "admitted"],
      ["webhook", name, "", "timeout"],
    ]);
    return;
  }
});
