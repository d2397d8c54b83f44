/** Engine policies read from unstructured objects, and unknown versions read as unrecognised. */
import { describe, expect, it } from "vitest";
import {
  engineCollections,
  parseEngineObject,
  parseEngineObjects,
} from "@/lib/admission/engines/sources";
import {
  gatekeeperConstraint,
  gatekeeperTemplate,
  kubewardenPolicy,
  kyvernoClusterPolicy,
  kyvernoValidatingPolicy,
} from "@/lib/admission/engines/engine-objects";

describe("parseEngineObject", () => {
  it("reads a ConstraintTemplate's VAP generation status from each pod", () => {
    const t = parseEngineObject(
      gatekeeperTemplate({
        name: "k8srequiredlabels",
        kind: "K8sRequiredLabels",
        vapState: { state: "error", warning: "ValidatingAdmissionPolicy is not generated: boom" },
      }),
    );
    expect(t).toMatchObject({
      type: "gatekeeper-template",
      constraintKind: "K8sRequiredLabels",
      hasCel: true,
      created: true,
      vapGeneration: [
        {
          pod: "gatekeeper-controller-manager-0",
          state: "error",
          warning: "ValidatingAdmissionPolicy is not generated: boom",
        },
      ],
    });
  });

  it("reads a Constraint's enforcement action per enforcement point, deny by default", () => {
    expect(
      parseEngineObject(gatekeeperConstraint({ kind: "K", name: "a", totalViolations: 4 })),
    ).toMatchObject({
      type: "gatekeeper-constraint",
      enforcementAction: "deny",
      actions: { webhook: ["deny"], vap: ["deny"], audit: ["deny"] },
      totalViolations: 4,
    });
    const scoped = parseEngineObject(
      gatekeeperConstraint({
        kind: "K",
        name: "b",
        enforcementAction: "scoped",
        scoped: [
          { action: "deny", points: ["vap.k8s.io"] },
          { action: "warn", points: ["*"] },
        ],
      }),
    );
    expect(scoped).toMatchObject({
      enforcementAction: "scoped",
      actions: { webhook: ["warn"], vap: ["deny", "warn"], audit: ["warn"] },
    });
    expect(
      parseEngineObject(gatekeeperConstraint({ kind: "K", name: "c", enforcementAction: "block" })),
    ).toMatchObject({
      enforcementAction: "unrecognized",
      actions: { webhook: [], vap: [], audit: [] },
    });
  });

  it("reads a ClusterPolicy's failure actions, admission, background and VAP status", () => {
    const p = parseEngineObject(
      kyvernoClusterPolicy({
        name: "p",
        failureAction: "Audit",
        admission: false,
        generated: {
          generated: false,
          message: "skip generating ValidatingAdmissionPolicy: a policy exception is configured.",
        },
      }),
    );
    expect(p).toMatchObject({
      type: "kyverno-policy",
      validationFailureAction: "Audit",
      rules: [{ name: "check", type: "validate", failureAction: "Audit" }],
      admission: false,
      background: true,
      failurePolicy: "Fail",
      generation: { generated: false, message: expect.stringContaining("policy exception") },
    });
  });

  it("reads a ValidatingPolicy's actions and autogen", () => {
    expect(
      parseEngineObject(kyvernoValidatingPolicy({ name: "v", generateVAP: true, generated: true })),
    ).toMatchObject({
      type: "kyverno-cel-policy",
      validationActions: ["Deny"],
      admission: true,
      generateAdmissionPolicy: true,
      generation: { generated: true, message: "" },
    });
  });

  it("reads a Kubewarden policy's mode and timeouts with the CRD's defaults", () => {
    expect(
      parseEngineObject(kubewardenPolicy({ name: "k", timeoutEvalSeconds: 12 })),
    ).toMatchObject({
      type: "kubewarden-policy",
      ref: { kind: "ClusterAdmissionPolicy", name: "k" },
      mode: "protect",
      timeoutSeconds: 10,
      timeoutEvalSeconds: 12,
      failurePolicy: "Fail",
    });
  });

  it("reads an unknown version as unrecognised, with the reason, never throwing", () => {
    const u = parseEngineObject({
      apiVersion: "kyverno.io/v3",
      kind: "ClusterPolicy",
      metadata: { name: "x" },
      spec: "?",
    });
    expect(u).toEqual({
      type: "unrecognised",
      engine: "kyverno",
      apiVersion: "kyverno.io/v3",
      kind: "ClusterPolicy",
      name: "x",
      reason:
        "ClusterPolicy is read in kyverno.io/v1, kyverno.io/v2beta1; this object is kyverno.io/v3",
    });
    expect(
      parseEngineObject({
        apiVersion: "constraints.gatekeeper.sh/v1beta1",
        kind: "K",
        metadata: { name: "y" },
        spec: 3,
      }),
    ).toMatchObject({
      type: "unrecognised",
      reason: "spec is not an object",
    });
    for (const junk of [
      null,
      1,
      "x",
      [],
      {},
      { apiVersion: 5 },
      { apiVersion: "apps/v1", kind: "Deployment" },
    ])
      expect(parseEngineObject(junk)).toBeUndefined();
  });

  it("reads Lists' items", () => {
    const s = parseEngineObjects([
      {
        apiVersion: "v1",
        kind: "List",
        items: [kubewardenPolicy({ name: "a" }), kubewardenPolicy({ name: "b", namespace: "n" })],
      },
    ]);
    expect(s.policies.map((p) => p.ref.kind)).toEqual([
      "ClusterAdmissionPolicy",
      "AdmissionPolicy",
    ]);
  });
});

describe("engineCollections", () => {
  const d = (
    group: string,
    version: string,
    resource: string,
    kind: string,
    namespaced = false,
  ) => ({
    group,
    version,
    resource,
    kind,
    namespaced,
  });
  it("lists each engine kind once, in a version it reads, and every Constraint kind", () => {
    expect(
      engineCollections([
        d("", "v1", "pods", "Pod", true),
        d("kyverno.io", "v2beta1", "clusterpolicies", "ClusterPolicy"),
        d("kyverno.io", "v1", "clusterpolicies", "ClusterPolicy"),
        d("kyverno.io", "v1", "clusterpolicies/status", "ClusterPolicy"),
        d("kyverno.io", "v1", "policyexceptions", "PolicyException", true),
        d("constraints.gatekeeper.sh", "v1beta1", "k8srequiredlabels", "K8sRequiredLabels"),
        d("policies.kubewarden.io", "v9", "admissionpolicies", "AdmissionPolicy", true),
      ]),
    ).toEqual([
      {
        engine: "kyverno",
        group: "kyverno.io",
        version: "v1",
        resource: "clusterpolicies",
        kind: "ClusterPolicy",
        namespaced: false,
      },
      {
        engine: "gatekeeper",
        group: "constraints.gatekeeper.sh",
        version: "v1beta1",
        resource: "k8srequiredlabels",
        kind: "K8sRequiredLabels",
        namespaced: false,
      },
      // A version it does not read is still listed: its objects read as unrecognised.
      {
        engine: "kubewarden",
        group: "policies.kubewarden.io",
        version: "v9",
        resource: "admissionpolicies",
        kind: "AdmissionPolicy",
        namespaced: true,
      },
    ]);
    expect(engineCollections([d("", "v1", "pods", "Pod", true)])).toEqual([]);
  });
});

describe("malformed objects", () => {
  it("never throw, whatever the shape", async () => {
    const { recogniseOwnership } = await import("@/lib/admission/engines/ownership");
    const junk: unknown[] = [null, 1, "x", [], {}, { spec: [] }, { spec: "s", status: 3 }];
    const kinds = [
      ["templates.gatekeeper.sh/v1", "ConstraintTemplate"],
      ["constraints.gatekeeper.sh/v1beta1", "K"],
      ["kyverno.io/v1", "ClusterPolicy"],
      ["policies.kyverno.io/v1", "ValidatingPolicy"],
      ["policies.kubewarden.io/v1", "ClusterAdmissionPolicyGroup"],
    ];
    for (const [apiVersion, kind] of kinds)
      for (const j of junk) {
        const o = {
          apiVersion,
          kind,
          metadata: { name: "n", labels: j, managedFields: j },
          spec: {
            rules: j,
            targets: j,
            policies: j,
            scopedEnforcementActions: j,
            validationActions: j,
          },
          status: { byPod: j, validatingadmissionpolicy: j },
        };
        expect(() => parseEngineObject(o)).not.toThrow();
      }
    for (const j of junk)
      expect(() =>
        recogniseOwnership({
          validatingWebhookConfigurations: [
            {
              metadata: {
                name: "kyverno-resource-validating-webhook-cfg",
                ownerReferences: j,
                labels: { "webhook.kyverno.io/managed-by": "kyverno" },
              },
              webhooks: j,
            } as never,
            {
              metadata: { name: "c" },
              webhooks: [
                {
                  name: "validate.kyverno.svc-fail-finegrained-x",
                  clientConfig: { service: { path: j, namespace: j }, url: j },
                },
              ],
            } as never,
          ],
          validatingAdmissionPolicyBindings: [
            { metadata: { name: "gatekeeper-k-x" }, spec: { policyName: j, paramRef: j } } as never,
          ],
        }),
      ).not.toThrow();
  });
});
