/**
 * The engines as the real apiserver serves them, with the engines' CRDs installed (the test
 * stack installs them, cluster/engines.ts): Gatekeeper's objects recognised with their source
 * policy and certainty, an engine CRD served in a version the reader does not know shown as
 * unrecognised (never an error), nothing extra once the engine objects are gone, and a viewer
 * reading them through the aggregated ClusterRole of cluster/rbac.ts.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readStack } from "../../cluster/harness/stack";
import {
  engineApi,
  removeGatekeeper,
  seedGatekeeper,
  type GatekeeperWorld,
} from "../../cluster/engines";
import { kubeClientFor, type KubeClient } from "@/server/kube/client";
import { readEngines } from "./read";

const CRD = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
/** A Kyverno kind the reader knows, served here only in a version it does not. */
const ODD_CRD = "deletingpolicies.policies.kyverno.io";

let admin: KubeClient;
let viewer: KubeClient;
let context: string;
let viewerContext: string;
let world: GatekeeperWorld | undefined;
let api: ReturnType<typeof engineApi>;

beforeAll(async () => {
  const stack = readStack();
  process.env.KUBECONFIG = stack.kubeconfig;
  context = stack.contexts.admin;
  viewerContext = stack.contexts.viewer;
  admin = kubeClientFor(context);
  viewer = kubeClientFor(viewerContext);
  api = engineApi({
    server: stack.server,
    ca: readFileSync(stack.caFile),
    token: stack.tokens.admin,
  });
  world = await seedGatekeeper(api);
}, 120_000);

afterAll(async () => {
  if (world) await removeGatekeeper(api, world);
  await api("DELETE", `${CRD}/${ODD_CRD}`);
});

describe("readEngines", () => {
  it("recognises Gatekeeper's webhook, generated policy and bindings with their source and certainty", async () => {
    const data = await readEngines({ client: admin, context });
    const gk = data.engines.find((e) => e.engine === "gatekeeper");
    expect(gk, JSON.stringify(data.notices)).toBeDefined();
    if (!gk) return;
    expect(gk.served).toContain("ConstraintTemplate templates.gatekeeper.sh/v1");
    expect(gk.served).toContain("K8sRequiredLabels constraints.gatekeeper.sh/v1beta1");

    const vap = gk.policies.find((p) => p.name === "gatekeeper-k8srequiredlabels");
    expect(vap?.kind).toBe("ValidatingAdmissionPolicy");
    expect(vap?.ownership.certainty).toBe("proof");
    expect(vap?.ownership.source).toMatchObject({
      kind: "ConstraintTemplate",
      name: "k8srequiredlabels",
    });

    const binding = gk.policies.find(
      (p) => p.name === "gatekeeper-k8srequiredlabels-ns-must-have-owner",
    );
    expect(binding?.ownership.certainty).toBe("proof");
    expect(binding?.policyName).toBe("gatekeeper-k8srequiredlabels");
    expect(binding?.ownership.source).toMatchObject({
      kind: "K8sRequiredLabels",
      name: "ns-must-have-owner",
    });

    const hook = gk.hooks.find((h) => h.hook === "validation.gatekeeper.sh");
    expect(hook?.configuration).toBe("gatekeeper-validating-webhook-configuration");
    expect(hook?.ownership.engine).toBe("gatekeeper");
    expect(hook?.ownership.certainty).not.toBe("proof");
    expect(hook?.order).toMatchObject({ stage: "validating-webhook" });
    expect(gk.hooks.map((h) => h.hook)).toContain("check-ignore-label.gatekeeper.sh");

    const constraint = gk.sources.find((s) => s.source.name === "ns-must-have-owner");
    expect(constraint?.policy).toMatchObject({
      type: "gatekeeper-constraint",
      enforcementAction: "deny",
      totalViolations: 2,
    });
    // Enforced twice: by its generated binding and by Gatekeeper's webhook.
    expect(constraint?.generatedBindings.map((c) => c.name)).toContain(
      "gatekeeper-k8srequiredlabels-ns-must-have-owner",
    );
    expect(constraint?.webhooks.map((c) => c.hook)).toContain("validation.gatekeeper.sh");
    const template = gk.sources.find((s) => s.source.kind === "ConstraintTemplate");
    expect(template?.generatedPolicies.map((c) => c.name)).toEqual([
      "gatekeeper-k8srequiredlabels",
    ]);
  });

  it("shows an engine CRD served in an unexpected version as unrecognised, not as an error", async () => {
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: ODD_CRD },
      spec: {
        group: "policies.kyverno.io",
        scope: "Cluster",
        names: { plural: "deletingpolicies", singular: "deletingpolicy", kind: "DeletingPolicy" },
        versions: [
          {
            name: "v9alpha1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        ],
      },
    };
    const made = await api("POST", CRD, crd);
    expect([201, 409]).toContain(made.status);
    await expect
      .poll(
        async () =>
          (await api("GET", "/apis/policies.kyverno.io/v9alpha1/deletingpolicies")).status,
      )
      .toBe(200);
    const obj = await api("POST", "/apis/policies.kyverno.io/v9alpha1/deletingpolicies", {
      apiVersion: "policies.kyverno.io/v9alpha1",
      kind: "DeletingPolicy",
      metadata: { name: "from-the-future" },
      spec: {},
    });
    expect(obj.status, obj.body).toBe(201);
    await expect
      .poll(async () => {
        const data = await readEngines({ client: admin, context });
        return data.engines
          .find((e) => e.engine === "kyverno")
          ?.unrecognised.map((u) => `${u.kind} ${u.name} ${u.apiVersion}`);
      })
      .toEqual(["DeletingPolicy from-the-future policies.kyverno.io/v9alpha1"]);
  });

  it("reads as the request's identity: a viewer reads the engines' policies through the aggregated ClusterRole", async () => {
    const data = await readEngines({ client: viewer, context: viewerContext });
    expect(data.notices.filter((n) => n.includes("gatekeeper.sh"))).toEqual([]);
    expect(
      data.engines
        .find((e) => e.engine === "gatekeeper")
        ?.sources.map((s) => `${s.source.kind} ${s.source.name}`),
    ).toEqual(
      expect.arrayContaining([
        "ConstraintTemplate k8srequiredlabels",
        "K8sRequiredLabels ns-must-have-owner",
      ]),
    );
  });
});
