/**
 * Ownership of engine objects shaped as the engines' source writes them (engine-objects.ts names
 * each file): the right engine, source policy and certainty, and nothing for plain objects.
 */
import { describe, expect, it } from "vitest";
import {
  gatekeeperConstraint,
  gatekeeperGeneratedBinding,
  gatekeeperGeneratedPolicy,
  gatekeeperTemplate,
  gatekeeperValidatingConfiguration,
  kubewardenPolicy,
  kubewardenPolicyConfiguration,
  kyvernoClusterPolicy,
  kyvernoGeneratedBinding,
  kyvernoGeneratedPolicy,
  kyvernoResourceValidatingConfiguration,
  kyvernoValidatingPolicy,
} from "@/lib/admission/engines/engine-objects";
import { ownershipOf, recogniseOwnership } from "@/lib/admission/engines/ownership";
import { joinEngines, linksOf } from "@/lib/admission/engines/joins";
import { parseEngineObjects } from "@/lib/admission/engines/sources";
import { hook } from "@/lib/admission/model/test-helpers";

describe("recogniseOwnership: Kyverno", () => {
  const cfg = kyvernoResourceValidatingConfiguration({
    owner: { name: "kyverno:admission-controller:webhook", uid: "u-role" },
    fineGrained: ["require-labels"],
    validatingPolicies: ["b-pol", "a-pol"],
  });
  const index = recogniseOwnership({ validatingWebhookConfigurations: [cfg] });

  it("owns the configuration by its label and its owner ClusterRole (strong)", () => {
    const o = ownershipOf(
      index,
      "ValidatingWebhookConfiguration",
      "kyverno-resource-validating-webhook-cfg",
    );
    expect(o?.engine).toBe("kyverno");
    expect(o?.certainty).toBe("strong");
    expect(o?.evidence).toContain("label webhook.kyverno.io/managed-by=kyverno");
    expect(
      o?.evidence.some((e) => e.includes("ClusterRole kyverno:admission-controller:webhook")),
    ).toBe(true);
  });

  it("reads the policy a fine-grained hook carries from its path", () => {
    const o = ownershipOf(
      index,
      "ValidatingWebhookConfiguration",
      "kyverno-resource-validating-webhook-cfg",
      2,
    );
    expect(o?.source).toEqual({
      engine: "kyverno",
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      name: "require-labels",
    });
    expect(o?.sourceCertainty).toBe("strong");
  });

  it("reads every ValidatingPolicy a shared vpol hook carries", () => {
    const o = ownershipOf(
      index,
      "ValidatingWebhookConfiguration",
      "kyverno-resource-validating-webhook-cfg",
      3,
    );
    expect(o?.sources.map((s) => `${s.kind}/${s.name}`)).toEqual([
      "ValidatingPolicy/a-pol",
      "ValidatingPolicy/b-pol",
    ]);
    expect(o?.source).toBeUndefined();
  });

  it("owns a generated policy and binding by owner reference (proof)", () => {
    const src = { kind: "ClusterPolicy" as const, name: "require-labels", uid: "u1" };
    const idx = recogniseOwnership({
      validatingAdmissionPolicies: [kyvernoGeneratedPolicy(src)],
      validatingAdmissionPolicyBindings: [kyvernoGeneratedBinding(src)],
    });
    for (const [kind, name] of [
      ["ValidatingAdmissionPolicy", "cpol-require-labels"],
      ["ValidatingAdmissionPolicyBinding", "cpol-require-labels-binding"],
    ] as const) {
      const o = ownershipOf(idx, kind, name);
      expect(o?.engine).toBe("kyverno");
      expect(o?.certainty).toBe("proof");
      expect(o?.source?.name).toBe("require-labels");
      expect(o?.sourceCertainty).toBe("proof");
    }
  });

  it("guesses from a name alone, and says so", () => {
    const idx = recogniseOwnership({
      validatingAdmissionPolicies: [
        { metadata: { name: "vpol-x" }, spec: { validations: [{ expression: "true" }] } },
      ],
    });
    const o = ownershipOf(idx, "ValidatingAdmissionPolicy", "vpol-x");
    expect(o).toMatchObject({ engine: "kyverno", certainty: "guess", sourceCertainty: "guess" });
    expect(o?.source).toMatchObject({ kind: "ValidatingPolicy", name: "x" });
    expect(o?.evidence[0]).toMatch(/^named vpol-x/);
  });

  it("takes a manager's word: Kyverno's user agent and its apply field managers", () => {
    const idx = recogniseOwnership({
      validatingWebhookConfigurations: [
        {
          metadata: {
            name: "custom",
            managedFields: [{ manager: "Kyverno" }, { manager: "kubectl-edit" }],
          },
          webhooks: [hook("x.example.com")],
        },
      ],
    });
    expect(ownershipOf(idx, "ValidatingWebhookConfiguration", "custom")).toMatchObject({
      engine: "kyverno",
      certainty: "strong",
      evidence: ["field manager Kyverno"],
    });
  });
});

describe("recogniseOwnership: Gatekeeper", () => {
  const world = {
    validatingWebhookConfigurations: [gatekeeperValidatingConfiguration()],
    validatingAdmissionPolicies: [
      gatekeeperGeneratedPolicy({
        name: "k8srequiredlabels",
        kind: "K8sRequiredLabels",
        uid: "t1",
      }),
    ],
    validatingAdmissionPolicyBindings: [
      gatekeeperGeneratedBinding({ kind: "K8sRequiredLabels", name: "must-have-owner", uid: "c1" }),
    ],
  };
  const index = recogniseOwnership(world);

  it("owns its webhook configuration and both hooks by label (strong)", () => {
    for (const p of [undefined, 0, 1])
      expect(
        ownershipOf(
          index,
          "ValidatingWebhookConfiguration",
          "gatekeeper-validating-webhook-configuration",
          p,
        ),
      ).toMatchObject({
        engine: "gatekeeper",
        certainty: "strong",
      });
    expect(index.engineNamespaces.gatekeeper).toEqual(["gatekeeper-system"]);
  });

  it("owns the template's policy and the constraint's binding by controller reference", () => {
    expect(
      ownershipOf(index, "ValidatingAdmissionPolicy", "gatekeeper-k8srequiredlabels"),
    ).toMatchObject({
      engine: "gatekeeper",
      certainty: "proof",
      source: {
        kind: "ConstraintTemplate",
        name: "k8srequiredlabels",
        apiVersion: "templates.gatekeeper.sh/v1beta1",
      },
    });
    expect(
      ownershipOf(
        index,
        "ValidatingAdmissionPolicyBinding",
        "gatekeeper-k8srequiredlabels-must-have-owner",
      ),
    ).toMatchObject({
      engine: "gatekeeper",
      certainty: "proof",
      source: { kind: "K8sRequiredLabels", name: "must-have-owner" },
    });
  });

  it("guesses a binding's constraint by name, its kind from the policy's paramKind", () => {
    const idx = recogniseOwnership({
      validatingAdmissionPolicies: [
        gatekeeperGeneratedPolicy({ name: "k8srequiredlabels", kind: "K8sRequiredLabels" }),
      ],
      validatingAdmissionPolicyBindings: [
        gatekeeperGeneratedBinding({ kind: "K8sRequiredLabels", name: "owner" }),
      ],
    });
    expect(
      ownershipOf(idx, "ValidatingAdmissionPolicyBinding", "gatekeeper-k8srequiredlabels-owner"),
    ).toMatchObject({
      certainty: "guess",
      source: {
        apiVersion: "constraints.gatekeeper.sh/v1beta1",
        kind: "K8sRequiredLabels",
        name: "owner",
      },
    });
  });

  it("joins a constraint to the webhook, the template's policy and its binding, and back", () => {
    const sources = parseEngineObjects([
      gatekeeperTemplate({ name: "k8srequiredlabels", kind: "K8sRequiredLabels" }),
      gatekeeperConstraint({
        kind: "K8sRequiredLabels",
        name: "must-have-owner",
        totalViolations: 3,
      }),
    ]);
    const idx = recogniseOwnership(world, sources);
    const joins = joinEngines(idx, sources);
    const constraint = sources.policies[1]!;
    const links = linksOf(joins, constraint.ref);
    expect(links.webhooks.map((w) => `${w.name}#${w.position}`)).toEqual([
      "gatekeeper-validating-webhook-configuration#0",
    ]);
    expect(links.generatedPolicies.map((p) => p.name)).toEqual(["gatekeeper-k8srequiredlabels"]);
    expect(links.generatedBindings.map((p) => p.name)).toEqual([
      "gatekeeper-k8srequiredlabels-must-have-owner",
    ]);
    expect(
      joins.sourcesOf[
        "ValidatingWebhookConfiguration/gatekeeper-validating-webhook-configuration#0"
      ],
    ).toEqual(["gatekeeper:constraints.gatekeeper.sh/K8sRequiredLabels//must-have-owner"]);
  });
});

describe("recogniseOwnership: Kubewarden", () => {
  it("owns a policy's configuration and hook by label and annotations, naming the policy", () => {
    const idx = recogniseOwnership({
      validatingWebhookConfigurations: [
        kubewardenPolicyConfiguration({ name: "safe-labels" }),
        kubewardenPolicyConfiguration({ name: "no-latest", namespace: "team-a" }),
      ],
    });
    expect(
      ownershipOf(idx, "ValidatingWebhookConfiguration", "clusterwide-safe-labels", 0),
    ).toMatchObject({
      engine: "kubewarden",
      certainty: "strong",
      source: {
        engine: "kubewarden",
        apiVersion: "policies.kubewarden.io/v1",
        kind: "ClusterAdmissionPolicy",
        name: "safe-labels",
      },
      sourceCertainty: "strong",
    });
    expect(
      ownershipOf(idx, "ValidatingWebhookConfiguration", "namespaced-team-a-no-latest", 0)?.source,
    ).toEqual({
      engine: "kubewarden",
      apiVersion: "policies.kubewarden.io/v1",
      kind: "AdmissionPolicy",
      namespace: "team-a",
      name: "no-latest",
    });
  });

  it("resolves an ambiguous namespaced name alone only against a read policy", () => {
    const cfg = {
      metadata: { name: "namespaced-team-a-no-latest" },
      webhooks: [hook("namespaced-team-a-no-latest.kubewarden.admission")],
    };
    const bare = recogniseOwnership({ validatingWebhookConfigurations: [cfg] });
    expect(ownershipOf(bare, "ValidatingWebhookConfiguration", cfg.metadata.name)).toMatchObject({
      engine: "kubewarden",
      certainty: "guess",
      sources: [],
    });
    const sources = parseEngineObjects([
      kubewardenPolicy({ name: "no-latest", namespace: "team-a" }),
    ]);
    const read = recogniseOwnership({ validatingWebhookConfigurations: [cfg] }, sources);
    expect(
      ownershipOf(read, "ValidatingWebhookConfiguration", cfg.metadata.name)?.source,
    ).toMatchObject({
      namespace: "team-a",
      name: "no-latest",
    });
  });
});

describe("recogniseOwnership: nothing extra without engines", () => {
  it("recognises nothing in a plain configuration", () => {
    const idx = recogniseOwnership({
      validatingWebhookConfigurations: [
        { metadata: { name: "cfg" }, webhooks: [hook("a.example.com")] },
      ],
      validatingAdmissionPolicies: [{ metadata: { name: "require-team" } }],
      validatingAdmissionPolicyBindings: [
        { metadata: { name: "require-team-binding" }, spec: { policyName: "require-team" } },
      ],
    });
    expect(idx).toEqual({ objects: {}, engineNamespaces: {} });
  });

  it("joins Kyverno ClusterPolicies without a hook of their own to the shared hook, unless generated", () => {
    const cfg = kyvernoResourceValidatingConfiguration();
    const sources = parseEngineObjects([
      kyvernoClusterPolicy({ name: "plain" }),
      kyvernoClusterPolicy({ name: "gen", generated: { generated: true, message: "" } }),
      kyvernoValidatingPolicy({ name: "v" }),
    ]);
    const joins = joinEngines(
      recogniseOwnership({ validatingWebhookConfigurations: [cfg] }, sources),
      sources,
    );
    expect(linksOf(joins, sources.policies[0]!.ref).webhooks.map((w) => w.hook)).toEqual([
      "validate.kyverno.svc-fail",
    ]);
    expect(linksOf(joins, sources.policies[1]!.ref).webhooks).toEqual([]);
  });
});
