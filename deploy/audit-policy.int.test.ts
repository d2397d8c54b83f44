/**
 * The shipped audit policy (deploy/chart/portcullis/files/audit-policy.yaml, the one the local
 * control plane runs with) against the real apiserver: a refusal of CONNECT admission reached with
 * the verb get — kubectl exec, attach and port-forward open a websocket with a GET, and a proxy is
 * read with one — must reach the audit log, where the decision feed reads it, while plain reads
 * stay out of it.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEventsOf, readStack, type StackInfo } from "../cluster/harness/stack";
import { httpsRequest } from "../cluster/https-json";
import { parseAuditEvent } from "@/lib/admission/audit/audit";
import { denyInNamespaceBinding } from "../test/policy-objects";

let stack: StackInfo;
let ca: Buffer;
const tag = `auditpolicy-${Date.now().toString(36)}`;
const ns = tag;
const ADMISSION = "/apis/admissionregistration.k8s.io/v1";

async function api(method: string, url: string, body?: unknown) {
  return httpsRequest(`${stack.server}${url}`, {
    method,
    token: stack.tokens.admin,
    ca,
    body,
    timeoutMs: 30_000,
  });
}

const eventsOf = (auditID: string, waitMs?: number) => auditEventsOf(stack, auditID, waitMs);

/** A GET that admission refuses: retried until the policy is in effect (it is compiled first). */
async function refusedGet(url: string): Promise<{ status: number; auditID: string }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await api("GET", url);
    const auditID = res.headers["audit-id"];
    if (typeof auditID !== "string") throw new Error("the apiserver sent no Audit-Id");
    if (res.body.includes("connect probe") || Date.now() > deadline)
      return { status: res.status, auditID };
    await new Promise((r) => setTimeout(r, 300));
  }
}

beforeAll(async () => {
  stack = readStack();
  ca = readFileSync(stack.caFile);
  expect((await api("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  const policy = await api("POST", `${ADMISSION}/validatingadmissionpolicies`, {
    metadata: { name: tag },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [""],
            apiVersions: ["v1"],
            operations: ["CONNECT"],
            resources: ["pods/exec", "services/proxy"],
          },
          {
            apiGroups: [""],
            apiVersions: ["v1"],
            operations: ["DELETE"],
            resources: ["configmaps"],
          },
        ],
      },
      validations: [
        {
          expression: "request.operation != 'DELETE'",
          message: "delete probe",
        },
        { expression: "request.operation == 'DELETE'", message: "connect probe" },
      ],
    },
  });
  expect(policy.status).toBe(201);
  const binding = await api(
    "POST",
    `${ADMISSION}/validatingadmissionpolicybindings`,
    denyInNamespaceBinding(tag, ns),
  );
  expect(binding.status).toBe(201);
});

afterAll(async () => {
  await api("DELETE", `${ADMISSION}/validatingadmissionpolicybindings/${tag}`).catch(() => null);
  await api("DELETE", `${ADMISSION}/validatingadmissionpolicies/${tag}`).catch(() => null);
  await api("DELETE", `/api/v1/namespaces/${ns}`).catch(() => null);
});

describe("the shipped audit policy", () => {
  it.each([
    ["an exec opened with GET", `/api/v1/namespaces/${ns}/pods/web/exec?command=ls&stdout=true`],
    ["a proxy read with GET", `/api/v1/namespaces/${ns}/services/web/proxy/healthz`],
  ])("logs %s that CONNECT admission refuses, and the feed reads the refusal", async (_, url) => {
    const { status, auditID } = await refusedGet(url);
    expect(status).toBe(422);
    const events = await eventsOf(auditID);
    const complete = events.find((e) => e.stage === "ResponseComplete");
    expect(complete, "no ResponseComplete event for the request in the audit log").toBeDefined();
    expect(complete?.verb).toBe("get");
    const parsed = parseAuditEvent(complete);
    expect(parsed?.request.operation).toBe("CONNECT");
    expect(parsed?.decisions).toEqual([
      expect.objectContaining({
        kind: "validating-policy",
        hook: tag,
        outcome: "rejected",
        message: expect.stringContaining("connect probe"),
      }),
    ]);
  });

  it("logs a delete's options, so a dry-run delete (options in the body, as kubectl sends them) reads as one", async () => {
    const cm = `${tag}-cm`;
    const created = await api("POST", `/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name: cm },
    });
    expect(created.status).toBe(201);
    const url = `/api/v1/namespaces/${ns}/configmaps/${cm}`;
    const deadline = Date.now() + 30_000;
    let res = await api("DELETE", url, {
      kind: "DeleteOptions",
      apiVersion: "v1",
      dryRun: ["All"],
    });
    while (!res.body.includes("delete probe") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 300));
      res = await api("DELETE", url, { kind: "DeleteOptions", apiVersion: "v1", dryRun: ["All"] });
    }
    expect(res.status).toBe(422);
    const events = await eventsOf(res.headers["audit-id"] as string);
    const parsed = parseAuditEvent(events.find((e) => e.stage === "ResponseComplete"));
    expect(parsed?.request).toMatchObject({ operation: "DELETE", dryRun: true });
    expect(parsed?.decisions).toEqual([
      expect.objectContaining({
        hook: tag,
        outcome: "rejected",
        message: expect.stringContaining("delete probe"),
      }),
    ]);
    // The same delete for real: no dry run.
    const real = await api("DELETE", url, { kind: "DeleteOptions", apiVersion: "v1" });
    expect(real.status).toBe(422);
    const realEvents = await eventsOf(real.headers["audit-id"] as string);
    const realParsed = parseAuditEvent(realEvents.find((e) => e.stage === "ResponseComplete"));
    expect(realParsed?.request.dryRun).toBe(false);
  });

  it("leaves a plain read out of the audit log", async () => {
    const res = await api("GET", `/api/v1/namespaces/${ns}`);
    expect(res.status).toBe(200);
    const auditID = res.headers["audit-id"] as string;
    // A later request's event is in the log, so the read's would be by now.
    const { auditID: later } = await refusedGet(`/api/v1/namespaces/${ns}/services/web/proxy/`);
    expect((await eventsOf(later)).length).toBeGreaterThan(0);
    expect(await eventsOf(auditID, 0)).toEqual([]);
  });
});
