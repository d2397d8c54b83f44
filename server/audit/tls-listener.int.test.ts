/**
 * The audit sink's own TLS listener against the real apiserver: a control plane whose audit
 * webhook kubeconfig holds a client certificate (from a CA of its own) and no token posts its
 * batches straight to the dashboard's listener, and the decisions of real admission requests
 * against harness webhooks are stored. The listener refuses a certificate from another CA, a
 * sender with neither certificate nor token, and a common name it does not allow (it allows only
 * the apiserver's here); the bearer token alone still works, and nothing but POST /api/audit is
 * served.
 */
import https from "node:https";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCa, issueServingCert } from "../../cluster/certs";
import { httpsRequest } from "../../cluster/https-json";
import { startStack, type Stack } from "../../cluster/harness/stack";
import { startWebhookServer, type WebhookServer } from "../../cluster/harness/webhook-server";
import type { AuditTlsFiles } from "../../cluster/control-plane";
import { policyHeaders } from "../../test/api-headers";
import type { DecisionRecord } from "@/lib/admission/audit/audit";

let stack: Stack | undefined;
let hooks: WebhookServer | undefined;
const id = `tls${Date.now().toString(36)}`;
const ns = id;

function info(): Stack["info"] & { auditTls: AuditTlsFiles } {
  const i = stack?.info;
  if (!i?.auditTls) throw new Error("the stack did not start with the audit TLS listener");
  return { ...i, auditTls: i.auditTls };
}

function kube(method: string, p: string, body?: unknown) {
  const i = info();
  return httpsRequest(`${i.server}${p}`, {
    method,
    body,
    ca: readFileSync(i.caFile),
    token: i.tokens.admin,
    timeoutMs: 30_000,
  });
}

function webhook(name: string) {
  if (!hooks) throw new Error("no webhook server");
  return {
    name: `${name}.${id}.portcullis.test`,
    clientConfig: { url: hooks.url(name), caBundle: hooks.caBundle },
    rules: [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
    ],
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
    objectSelector: { matchLabels: { "portcullis.test/case": name } },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    failurePolicy: "Fail",
    timeoutSeconds: 5,
  };
}

const configMap = (name: string, testCase: string) => ({
  metadata: { name, labels: { "portcullis.test/case": testCase } },
});

beforeAll(async () => {
  stack = await startStack({ auditSink: "client-certificate", log: () => undefined });
  const i = info();
  hooks = await startWebhookServer({ certFile: i.caFile, keyFile: i.caKeyFile });
  hooks.program("patch", {
    type: "patch",
    patch: [{ op: "add", path: "/metadata/labels/patched-by", value: "harness" }],
  });
  hooks.program("deny", { type: "deny", message: "harness says no" });
  expect((await kube("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  const adm = "/apis/admissionregistration.k8s.io/v1";
  const m = await kube("POST", `${adm}/mutatingwebhookconfigurations`, {
    metadata: { name: `${id}-mutating` },
    webhooks: [webhook("patch")],
  });
  expect(m.status, m.body).toBe(201);
  const v = await kube("POST", `${adm}/validatingwebhookconfigurations`, {
    metadata: { name: `${id}-validating` },
    webhooks: [webhook("deny")],
  });
  expect(v.status, v.body).toBe(201);
  // The apiserver picks up new configurations a moment after they are created.
  const deadline = Date.now() + 20_000;
  while (hooks.calls("patch").length === 0 || hooks.calls("deny").length === 0) {
    if (Date.now() > deadline) throw new Error("the apiserver never called the harness hooks");
    for (const c of ["patch", "deny"]) {
      await kube(
        "POST",
        `/api/v1/namespaces/${ns}/configmaps?dryRun=All`,
        configMap(`probe-${Date.now()}`, c),
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}, 240_000);

afterAll(async () => {
  await hooks?.close();
  await stack?.stop();
}, 60_000);

/** The stored decisions of one request, read back through the dashboard's decision API. */
async function decisionsOf(query: string, timeoutMs = 15_000): Promise<DecisionRecord[]> {
  const i = info();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${i.dashboardUrl}/api/decisions?${query}`, {
      headers: policyHeaders(i.contexts.admin),
    });
    expect(res.status).toBe(200);
    const items = ((await res.json()) as { items: DecisionRecord[] }).items;
    if (items.length > 0 || Date.now() > deadline) return items;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Posts to the dashboard's audit listener with Node's https client. */
function postToListener(opts: {
  body: string;
  cert?: { certFile: string; keyFile: string };
  token?: string;
  method?: string;
  path?: string;
}): Promise<{ status: number; body: string }> {
  const i = info();
  return new Promise((resolve, reject) => {
    const req = https.request(
      `https://${i.auditTls.listen}${opts.path ?? "/api/audit"}`,
      {
        method: opts.method ?? "POST",
        ca: readFileSync(i.caFile),
        ...(opts.cert
          ? { cert: readFileSync(opts.cert.certFile), key: readFileSync(opts.cert.keyFile) }
          : {}),
        headers: {
          "content-type": "application/json",
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}

/**
 * POSTs a head announcing `length` bytes and the first kilobyte of them, and resolves with the
 * answer the listener gives before the rest is sent (then drops the connection). A kilobyte the
 * listener reads whole: unread bytes in its socket would turn its close into a reset.
 */
function answerToHead(
  length: number,
  cert: { certFile: string; keyFile: string },
): Promise<{ status: number; body: string }> {
  const i = info();
  return new Promise((resolve, reject) => {
    const req = https.request(`https://${i.auditTls.listen}/api/audit`, {
      method: "POST",
      ca: readFileSync(i.caFile),
      cert: readFileSync(cert.certFile),
      key: readFileSync(cert.keyFile),
      headers: { "content-type": "application/json", "content-length": String(length) },
      agent: false,
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") });
        req.destroy();
      });
    });
    req.on("error", reject);
    req.write(" ".repeat(1024));
  });
}

const messageOf = (body: string): string => (JSON.parse(body) as { message: string }).message;

/** One audit event whose user is `user` (so each sender's batch is told apart). */
function batch(user: string): string {
  const now = new Date().toISOString();
  return JSON.stringify({
    kind: "EventList",
    apiVersion: "audit.k8s.io/v1",
    items: [
      {
        kind: "Event",
        apiVersion: "audit.k8s.io/v1",
        level: "Metadata",
        auditID: `${user}-event`,
        stage: "ResponseComplete",
        requestReceivedTimestamp: now,
        stageTimestamp: now,
        requestURI: `/api/v1/namespaces/${ns}/configmaps`,
        verb: "create",
        user: { username: user, groups: ["system:authenticated"] },
        objectRef: { resource: "configmaps", namespace: ns, name: "x", apiVersion: "v1" },
        responseStatus: { code: 201 },
        annotations: {
          "mutation.webhook.admission.k8s.io/round_0_index_0":
            '{"configuration":"c","webhook":"w.example.com","mutated":true}',
        },
      },
    ],
  });
}

describe("the audit sink's TLS listener with the real apiserver's client certificate", () => {
  it("the apiserver's audit kubeconfig holds a client certificate and no token", () => {
    const kubeconfig = readFileSync(path.join(info().dir, "audit-webhook.kubeconfig"), "utf8");
    expect(kubeconfig).toContain(`server: https://${info().auditTls.listen}/api/audit`);
    expect(kubeconfig).toContain(`client-certificate: ${info().auditTls.clientCertFile}`);
    expect(kubeconfig).toContain(`client-key: ${info().auditTls.clientKeyFile}`);
    expect(kubeconfig).not.toMatch(/token/i);
  });

  it("stores the decisions of real admission requests the apiserver sent it", async () => {
    const patched = await kube(
      "POST",
      `/api/v1/namespaces/${ns}/configmaps`,
      configMap("patched", "patch"),
    );
    expect(patched.status, patched.body).toBe(201);
    const denied = await kube(
      "POST",
      `/api/v1/namespaces/${ns}/configmaps`,
      configMap("denied", "deny"),
    );
    expect(denied.status, denied.body).toBe(403);
    expect(denied.body).toContain("harness says no");

    const patchedID = patched.headers["audit-id"] as string;
    const deniedID = denied.headers["audit-id"] as string;
    expect(await decisionsOf(`auditID=${encodeURIComponent(patchedID)}`)).toEqual([
      expect.objectContaining({
        kind: "mutating-webhook",
        configuration: `${id}-mutating`,
        hook: `patch.${id}.portcullis.test`,
        outcome: "mutated",
        auditID: patchedID,
      }),
    ]);
    expect(await decisionsOf(`auditID=${encodeURIComponent(deniedID)}`)).toEqual([
      expect.objectContaining({
        kind: "webhook",
        hook: `deny.${id}.portcullis.test`,
        outcome: "denied",
        auditID: deniedID,
      }),
    ]);
  });

  it("refuses a client certificate from another CA, no certificate and no token, and a common name not allowed", async () => {
    const i = info();
    const otherDir = path.join(i.dir, "other-audit-ca");
    mkdirSync(otherDir, { recursive: true });
    const otherCa = createCa(otherDir, "not-the-audit-client-ca");
    // The very name the listener allows, signed by a CA it does not trust.
    const foreign = issueServingCert(otherDir, otherCa, i.auditTls.clientName);
    const stranger = issueServingCert(
      otherDir,
      { certFile: i.auditTls.clientCaFile, keyFile: i.auditTls.clientCaKeyFile },
      "someone-else",
    );

    const fromOtherCa = await postToListener({ body: batch(`${id}-foreign`), cert: foreign });
    expect(fromOtherCa.status, fromOtherCa.body).toBe(401);
    expect(messageOf(fromOtherCa.body)).toContain("not signed by PORTCULLIS_AUDIT_CLIENT_CA_FILE");

    const anonymous = await postToListener({ body: batch(`${id}-anonymous`) });
    expect(anonymous.status, anonymous.body).toBe(401);
    expect(messageOf(anonymous.body)).toBe("no client certificate, and no bearer token");

    const wrongName = await postToListener({ body: batch(`${id}-stranger`), cert: stranger });
    expect(wrongName.status, wrongName.body).toBe(401);
    expect(messageOf(wrongName.body)).toBe(
      `the client certificate's common name ("someone-else") is not in PORTCULLIS_AUDIT_CLIENT_NAMES, and no bearer token`,
    );

    const wrongToken = await postToListener({ body: batch(`${id}-wrong-token`), token: "nope" });
    expect(wrongToken.status, wrongToken.body).toBe(401);

    // The bearer token authenticates on the listener as on /api/audit.
    const withToken = await postToListener({ body: batch(`${id}-token`), token: i.auditToken });
    expect(withToken.status, withToken.body).toBe(200);
    expect(JSON.parse(withToken.body)).toEqual({ accepted: 1, stored: 1, duplicates: 0 });
    // And a certificate it allows, as the apiserver's.
    const asApiserver = await postToListener({
      body: batch(`${id}-apiserver`),
      cert: { certFile: i.auditTls.clientCertFile, keyFile: i.auditTls.clientKeyFile },
    });
    expect(asApiserver.status, asApiserver.body).toBe(200);

    expect(await decisionsOf(`user=${id}-token`)).toHaveLength(1);
    expect(await decisionsOf(`user=${id}-apiserver`)).toHaveLength(1);
    for (const refused of ["foreign", "anonymous", "stranger", "wrong-token"]) {
      expect(await decisionsOf(`user=${id}-${refused}`, 0)).toEqual([]);
    }
  });

  it("serves nothing but POST /api/audit", async () => {
    const i = info();
    const cert = { certFile: i.auditTls.clientCertFile, keyFile: i.auditTls.clientKeyFile };
    const elsewhere = await postToListener({ body: batch(`${id}-x`), cert, path: "/api/health" });
    expect(elsewhere.status).toBe(404);
    const get = await postToListener({ body: "", cert, method: "GET" });
    expect(get.status).toBe(404);
    // Refused from its head: the answer comes while the body is still being sent. (Sending the
    // whole 17 MiB, the client may meet the closed connection, EPIPE, before it reads the 413.)
    const huge = await answerToHead(17 * 1024 * 1024, cert);
    expect(huge.status).toBe(413);
    expect(messageOf(huge.body)).toContain("larger than");
  });
});
