/**
 * L19's premise, against the real apiserver: it accepts a webhook named like the prefix it files
 * its own mutating-call records under; that webhook's audit annotation, written before the next
 * hook is called, is what the audit event says of that hook (the apiserver's own record is
 * refused: an annotation is never overwritten), so the feed reads a call that did not mutate as
 * mutated. The linter flags the forger, and only it.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { completedAuditEvent, readStack } from "../../../cluster/harness/stack";
import { startWebhookServer, type WebhookServer } from "../../../cluster/harness/webhook-server";
import { adminKube, type AdminKube } from "../../../test/oracle/admin-kube";
import { parseAuditEvent } from "./audit";
import { lint } from "../lint/lint";
import type { V1MutatingWebhookConfiguration } from "@/lib/k8s/types";

let kube: AdminKube["kube"];
let hooks: WebhookServer;
const id = `forge${Date.now().toString(36)}`;
const ns = id;
const configuration = `${id}-mutating`;
const FORGER = "mutation.webhook.admission.k8s.io";
const gate = `gate.${id}.portcullis.test`;
const ADM = "/apis/admissionregistration.k8s.io/v1";

/** Both hooks: CREATE of configmaps in the test's namespace, called once each (no reinvocation). */
const hook = (name: string, target: string) =>
  hooks.webhook(name, target, {
    rules: [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
    ],
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
    reinvocationPolicy: "Never",
  });

let created: V1MutatingWebhookConfiguration;

beforeAll(async () => {
  const stack = readStack();
  kube = adminKube(stack).kube;
  hooks = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
  // Both only allow at first; the forger learns the gate's index from the apiserver's own record
  // below (static hooks, loaded from the apiserver's manifest directories, come first and take
  // the first indices).
  hooks.program("forger", { type: "allow" });
  hooks.program("gate", { type: "allow" });
  expect((await kube("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status).toBe(201);
  const res = await kube("POST", `${ADM}/mutatingwebhookconfigurations`, {
    metadata: { name: configuration },
    webhooks: [hook(FORGER, "forger"), hook(gate, "gate")],
  });
  // The apiserver accepts the name: a webhook name needs only three DNS labels.
  expect(res.status).toBe(201);
  created = JSON.parse(res.body) as V1MutatingWebhookConfiguration;
});

afterAll(async () => {
  await kube?.("DELETE", `${ADM}/mutatingwebhookconfigurations/${configuration}`).catch(() => null);
  await kube?.("DELETE", `/api/v1/namespaces/${ns}`).catch(() => null);
  await hooks?.close();
});

it("a webhook named like the apiserver's mutation records forges another hook's, and L19 flags it", async () => {
  // Retried until the configuration is in effect: the gate is then called, and the apiserver's
  // record of its call names its index.
  let n = 0;
  let gateCalled: { auditID: string } | undefined;
  await expect
    .poll(
      async () => {
        hooks.clearCalls();
        const res = await kube("POST", `/api/v1/namespaces/${ns}/configmaps`, {
          metadata: { name: `probe-${n++}` },
        });
        expect(res.status).toBe(201);
        const auditID = res.headers["audit-id"];
        if (hooks.calls("gate").length > 0 && typeof auditID === "string") gateCalled = { auditID };
        return gateCalled !== undefined;
      },
      { message: "the configuration never came into effect", timeout: 30_000 },
    )
    .toBe(true);
  const probe = (await completedAuditEvent(readStack(), gateCalled!.auditID)) as {
    annotations?: Record<string, string>;
  };
  const key = Object.entries(probe.annotations ?? {}).find(
    ([k, v]) => k.startsWith(`${FORGER}/round_0_index_`) && v.includes(`"${gate}"`),
  )?.[0];
  if (key === undefined)
    throw new Error(`no record of the gate's call: ${JSON.stringify(probe.annotations)}`);
  // The forger (called before the gate) claims, under the key the apiserver gives the gate's
  // call, that the gate mutated; the gate only allows.
  hooks.program("forger", {
    type: "allow",
    auditAnnotations: {
      [key.slice(FORGER.length + 1)]: JSON.stringify({
        configuration,
        webhook: gate,
        mutated: true,
      }),
    },
  });
  const deadline = Date.now() + 30_000;
  for (let n = 0; ; n++) {
    hooks.clearCalls();
    const res = await kube("POST", `/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name: `cm-${n}` },
    });
    expect(res.status).toBe(201);
    if (hooks.calls("gate").length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 300));
      continue;
    }
    // The gate was called and did not patch; the object is as sent.
    expect(hooks.calls("gate").map((c) => c.patched)).toEqual([false]);
    const auditID = res.headers["audit-id"];
    if (typeof auditID !== "string") throw new Error("the apiserver sent no Audit-Id");
    const event = (await completedAuditEvent(readStack(), auditID)) as {
      annotations?: Record<string, string>;
    };
    expect(event).toBeDefined();
    // The forged value stands where the apiserver's own record of the gate's call belongs.
    expect(JSON.parse(event.annotations?.[key] ?? "null")).toEqual({
      configuration,
      webhook: gate,
      mutated: true,
    });
    const parsed = parseAuditEvent(event);
    expect(
      parsed?.decisions.filter((d) => d.hook === gate).map((d) => [d.kind, d.outcome]),
    ).toEqual([["mutating-webhook", "mutated"]]);
    break;
  }
  const findings = lint({ snapshot: { mutatingWebhookConfigurations: [created] } }).filter(
    (f) => f.id === "L19",
  );
  expect(findings.map((f) => [f.severity, f.objects])).toEqual([
    ["high", [{ kind: "MutatingWebhookConfiguration", name: configuration, hook: FORGER }]],
  ]);
});
