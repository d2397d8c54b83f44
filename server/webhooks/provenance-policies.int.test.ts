/**
 * Provenance and reconcile fights of admission policies and bindings against the real apiserver:
 * server-side apply by a second field manager on a ValidatingAdmissionPolicy and on its binding is
 * read back from the apiserver's managedFields as that manager's injected terms; two managers
 * flipping a field of a MutatingAdmissionPolicy (v1 on 1.37) are raised as a fight from the watch
 * hub's stream, by the monitor started the way the server starts it (instrumentation.ts) and read
 * back over the dashboard's own /api/webhooks/fights.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { kubeClientFor, type KubeClient } from "@/server/kube/client";
import { configurationProvenance, type ManagedObject } from "@/lib/admission/provenance/provenance";
import type { FightsData } from "@/lib/api/webhooks";
import { policyHeaders } from "../../test/api-headers";
import { fightsOf, watchForFightsFromStart } from "./fight-monitor";

const GROUP = "/apis/admissionregistration.k8s.io/v1";
let admin: KubeClient;
let stack: StackInfo;
let context: string;
const made: string[] = [];

beforeAll(() => {
  stack = readStack();
  process.env.KUBECONFIG = stack.kubeconfig;
  context = stack.contexts.admin;
  admin = kubeClientFor(context);
});

afterAll(async () => {
  for (const path of made.reverse())
    await admin.request({ method: "DELETE", path }).catch(() => undefined);
});

/** Server-side apply of `body` to `resource`/`name` as `manager` (forcing conflicts). */
function apply(resource: string, kind: string, name: string, manager: string, spec: object) {
  const path = `${GROUP}/${resource}/${name}`;
  if (!made.includes(path)) made.push(path);
  return admin.request<ManagedObject>({
    method: "PATCH",
    path,
    query: { fieldManager: manager, force: true },
    contentType: "application/apply-patch+yaml",
    body: {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind,
      metadata: { name },
      spec,
    },
  });
}

/** Resources no one serves: the policies match nothing that is ever written. */
const matchNothing = {
  resourceRules: [
    {
      operations: ["CREATE"],
      apiGroups: ["provenance.portcullis.test"],
      apiVersions: ["v1"],
      resources: ["things"],
    },
  ],
};

describe("provenance of admission policies and bindings from the apiserver's managedFields", () => {
  it("flags a matchCondition and a validation action a second applier added", async () => {
    const name = `prov-vap-${Date.now()}`;
    await apply("validatingadmissionpolicies", "ValidatingAdmissionPolicy", name, "owner", {
      failurePolicy: "Ignore",
      matchConstraints: matchNothing,
      matchConditions: [
        { name: "not-leases", expression: "request.resource.resource != 'leases'" },
      ],
      validations: [{ expression: "true" }],
    });
    const policy = await apply(
      "validatingadmissionpolicies",
      "ValidatingAdmissionPolicy",
      name,
      "platform-conditions",
      {
        matchConditions: [{ name: "not-system", expression: "request.namespace != 'kube-system'" }],
      },
    );
    const p = configurationProvenance(policy);
    expect(p.creator?.manager).toMatchObject({ manager: "owner", operation: "Apply" });
    const pTerms = p.sections[0]!.terms;
    expect(pTerms.find((t) => t.field === 'matchConditions[name="not-system"]')).toMatchObject({
      granularity: "item",
      injected: { by: "platform-conditions" },
    });
    expect(
      pTerms.find((t) => t.field === 'matchConditions[name="not-leases"]')?.injected,
    ).toBeUndefined();
    expect(pTerms.find((t) => t.field === "failurePolicy")?.owners.map((o) => o.manager)).toEqual([
      "owner",
    ]);

    await apply(
      "validatingadmissionpolicybindings",
      "ValidatingAdmissionPolicyBinding",
      name,
      "owner",
      { policyName: name, validationActions: ["Deny"] },
    );
    const binding = await apply(
      "validatingadmissionpolicybindings",
      "ValidatingAdmissionPolicyBinding",
      name,
      "auditor",
      // Only the field it means to own: the policy's name stays its creator's alone.
      { validationActions: ["Audit"] },
    );
    const b = configurationProvenance(binding);
    const bTerms = b.sections[0]!.terms;
    expect(b.creator?.manager.manager).toBe("owner");
    expect(bTerms.find((t) => t.field === 'validationActions[="Audit"]')).toMatchObject({
      granularity: "field",
      injected: { by: "auditor" },
    });
    expect(bTerms.find((t) => t.field === 'validationActions[="Deny"]')?.injected).toBeUndefined();
  });
});

describe("reconcile fights on MutatingAdmissionPolicies", () => {
  it("raises two managers flipping a policy's field within 10 s, in this process and in the dashboard", async () => {
    // Watching here, and in the stack's dashboard from its first read of the fights (which
    // answers once its watches have listed).
    await watchForFightsFromStart(context);
    expect(
      (
        await fetch(`${stack.dashboardUrl}/api/webhooks/fights`, {
          headers: policyHeaders(context),
        })
      ).status,
    ).toBe(200);
    const name = `fight-map-${Date.now()}`;
    const full = (reinvocationPolicy: string) => ({
      failurePolicy: "Ignore",
      reinvocationPolicy,
      matchConstraints: matchNothing,
      mutations: [
        {
          patchType: "ApplyConfiguration",
          applyConfiguration: {
            expression: "Object{metadata: Object.metadata{labels: {'a': 'b'}}}",
          },
        },
      ],
    });
    const flip = (manager: string, reinvocationPolicy: string) =>
      apply(
        "mutatingadmissionpolicies",
        "MutatingAdmissionPolicy",
        name,
        manager,
        manager === "flux" ? full(reinvocationPolicy) : { reinvocationPolicy },
      );
    await flip("flux", "Never");
    await flip("tuner", "IfNeeded");
    await flip("flux", "Never");
    await flip("tuner", "IfNeeded");
    const started = Date.now();
    const expected = {
      kind: "MutatingAdmissionPolicy",
      name,
      path: ".spec.reinvocationPolicy",
      managers: ["tuner", "flux"],
      changes: [{ manager: "tuner" }, { manager: "flux" }, { manager: "tuner" }],
    };
    await expect
      .poll(
        async () =>
          (await fightsOf(context)).fights.find(
            (f) => f.name === name && f.path === ".spec.reinvocationPolicy",
          ),
        { timeout: 10_000, interval: 100 },
      )
      .toMatchObject(expected);
    expect(Date.now() - started).toBeLessThan(10_000);

    // The stack's dashboard has watched since before the first flip: its answer holds the fight.
    await expect
      .poll(
        async () => {
          const res = await fetch(`${stack.dashboardUrl}/api/webhooks/fights`, {
            headers: policyHeaders(context),
          });
          const data = (await res.json()) as FightsData;
          return data.fights.find((f) => f.name === name && f.path === ".spec.reinvocationPolicy");
        },
        { timeout: 10_000, interval: 100 },
      )
      .toMatchObject(expected);
  });

  it("raises a fight on a MutatingAdmissionPolicyBinding's field", async () => {
    const name = `fight-mapb-${Date.now()}`;
    await apply("mutatingadmissionpolicies", "MutatingAdmissionPolicy", name, "flux", {
      failurePolicy: "Ignore",
      reinvocationPolicy: "Never",
      matchConstraints: matchNothing,
      mutations: [
        {
          patchType: "ApplyConfiguration",
          applyConfiguration: {
            expression: "Object{metadata: Object.metadata{labels: {'a': 'b'}}}",
          },
        },
      ],
    });
    expect((await fightsOf(context)).fights.filter((f) => f.name === name)).toEqual([]);
    const selector = (team: string) => ({
      policyName: name,
      matchResources: { namespaceSelector: { matchLabels: { team } } },
    });
    await apply(
      "mutatingadmissionpolicybindings",
      "MutatingAdmissionPolicyBinding",
      name,
      "flux",
      selector("a"),
    );
    await apply(
      "mutatingadmissionpolicybindings",
      "MutatingAdmissionPolicyBinding",
      name,
      "tuner",
      selector("b"),
    );
    await apply(
      "mutatingadmissionpolicybindings",
      "MutatingAdmissionPolicyBinding",
      name,
      "flux",
      selector("a"),
    );
    await apply(
      "mutatingadmissionpolicybindings",
      "MutatingAdmissionPolicyBinding",
      name,
      "tuner",
      selector("b"),
    );
    await expect
      .poll(
        async () =>
          (await fightsOf(context)).fights.find(
            (f) => f.kind === "MutatingAdmissionPolicyBinding" && f.name === name,
          ),
        { timeout: 10_000, interval: 100 },
      )
      .toMatchObject({ managers: ["tuner", "flux"] });
  });
});
