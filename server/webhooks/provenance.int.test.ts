/**
 * Provenance and reconcile fights against the real apiserver: the managedFields it writes when a
 * second field manager changes a configuration (server-side apply, a strategic-merge PATCH with
 * another fieldManager) are read back as terms of that manager, and two managers flipping a field
 * are raised as a fight from the watch hub's stream within 10 s.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readStack } from "../../cluster/harness/stack";
import { kubeClientFor, type KubeClient } from "@/server/kube/client";
import { configurationProvenance, type ManagedObject } from "@/lib/admission/provenance/provenance";
import { fightsOf } from "./fight-monitor";

const VWC = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
let admin: KubeClient;
let context: string;
const made: string[] = [];

beforeAll(() => {
  const stack = readStack();
  process.env.KUBECONFIG = stack.kubeconfig;
  context = stack.contexts.admin;
  admin = kubeClientFor(context);
});

afterAll(async () => {
  for (const name of made)
    await admin.request({ method: "DELETE", path: `${VWC}/${name}` }).catch(() => undefined);
});

/** A hook that matches nothing that exists (a group no one serves), failing open. */
function hook(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    clientConfig: { url: "https://provenance.invalid/hook" },
    rules: [
      {
        operations: ["CREATE"],
        apiGroups: ["provenance.portcullis.test"],
        apiVersions: ["v1"],
        resources: ["things"],
      },
    ],
    failurePolicy: "Ignore",
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    timeoutSeconds: 10,
    ...extra,
  };
}

/** Server-side apply of `body` to configuration `name` as `manager` (forcing conflicts). */
function apply(name: string, manager: string, body: Record<string, unknown>) {
  return admin.request<ManagedObject>({
    method: "PATCH",
    path: `${VWC}/${name}`,
    query: { fieldManager: manager, force: true },
    contentType: "application/apply-patch+yaml",
    body: {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name },
      ...body,
    },
  });
}

describe("provenance from the apiserver's managedFields", () => {
  it("flags the terms a second manager added, with that manager and the granularity", async () => {
    const name = `provenance-${Date.now()}`;
    made.push(name);
    await apply(name, "owner", {
      webhooks: [
        hook("a.provenance.test", {
          namespaceSelector: { matchExpressions: [{ key: "team", operator: "Exists" }] },
          matchConditions: [
            { name: "not-leases", expression: "request.resource.resource != 'leases'" },
          ],
        }),
      ],
    });
    // The AKS admissions enforcer's way: an update adding its two terms to the selector.
    await admin.request({
      method: "PATCH",
      path: `${VWC}/${name}`,
      query: { fieldManager: "admissionsenforcer" },
      contentType: "application/strategic-merge-patch+json",
      body: {
        webhooks: [
          {
            name: "a.provenance.test",
            namespaceSelector: {
              matchExpressions: [
                { key: "team", operator: "Exists" },
                { key: "control-plane", operator: "NotIn", values: ["true"] },
                { key: "kubernetes.azure.com/managedby", operator: "NotIn", values: ["aks"] },
              ],
            },
          },
        ],
      },
    });
    // A second applier adding a matchCondition of its own.
    const obj = await apply(name, "platform-conditions", {
      webhooks: [
        {
          name: "a.provenance.test",
          matchConditions: [
            { name: "not-system", expression: "request.namespace != 'kube-system'" },
          ],
        },
      ],
    });

    const provenance = configurationProvenance(obj);
    expect(provenance.creator?.manager).toMatchObject({ manager: "owner", operation: "Apply" });
    const terms = provenance.sections[0]!.terms;
    const byText = (text: string) => terms.find((t) => t.text === text);
    expect(byText("control-plane NotIn [true]")).toMatchObject({
      granularity: "atomic-signature",
      ownedPath: '.webhooks[name="a.provenance.test"].namespaceSelector',
      injected: { by: "admissionsenforcer", platform: { name: "AKS admissions enforcer" } },
    });
    expect(byText("kubernetes.azure.com/managedby NotIn [aks]")?.injected?.by).toBe(
      "admissionsenforcer",
    );
    // The whole selector went to the enforcer: which manager wrote `team Exists` is not known.
    expect(byText("team Exists")).toMatchObject({ granularity: "atomic" });
    const condition = terms.find((t) => t.field === 'matchConditions[name="not-system"]');
    expect(condition).toMatchObject({
      granularity: "item",
      injected: { by: "platform-conditions" },
    });
    expect(
      terms.find((t) => t.field === 'matchConditions[name="not-leases"]')?.injected,
    ).toBeUndefined();
    expect(terms.find((t) => t.field === "failurePolicy")?.owners.map((o) => o.manager)).toEqual([
      "owner",
    ]);
  });
});

describe("reconcile fights from the watch stream", () => {
  it("raises two managers flipping a field within 10 s, with both managers and the times", async () => {
    const name = `fight-${Date.now()}`;
    made.push(name);
    const full = (timeoutSeconds: number) => ({
      webhooks: [hook("a.fight.test", { timeoutSeconds })],
    });
    await apply(name, "flux", full(10));
    // The monitor is watching before the flips (fightsOf resolves once its watches have synced).
    expect((await fightsOf(context)).fights.filter((f) => f.name === name)).toEqual([]);
    const flip = (manager: string, timeoutSeconds: number) =>
      manager === "flux"
        ? apply(name, manager, full(timeoutSeconds))
        : apply(name, manager, { webhooks: [{ name: "a.fight.test", timeoutSeconds }] });
    await flip("tuner", 5);
    await flip("flux", 10);
    await flip("tuner", 5);
    const started = Date.now();
    await expect
      .poll(
        async () =>
          (await fightsOf(context)).fights.find(
            (f) => f.name === name && f.path === '.webhooks[name="a.fight.test"].timeoutSeconds',
          ),
        { timeout: 10_000, interval: 100 },
      )
      .toMatchObject({
        kind: "ValidatingWebhookConfiguration",
        managers: ["tuner", "flux"],
        changes: [{ manager: "tuner" }, { manager: "flux" }, { manager: "tuner" }],
      });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("tells a configuration deleted and created again", async () => {
    const name = `recreate-${Date.now()}`;
    made.push(name);
    await apply(name, "engine", { webhooks: [hook("a.recreate.test")] });
    expect((await fightsOf(context)).recreations.filter((r) => r.name === name)).toEqual([]);
    await admin.request({ method: "DELETE", path: `${VWC}/${name}` });
    await apply(name, "engine", { webhooks: [hook("a.recreate.test")] });
    await expect
      .poll(async () => (await fightsOf(context)).recreations.find((r) => r.name === name), {
        timeout: 10_000,
        interval: 100,
      })
      .toMatchObject({ kind: "ValidatingWebhookConfiguration", by: "engine" });
  });
});
