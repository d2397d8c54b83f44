/** Engine policies read from unstructured objects, and unknown versions read as unrecognised. */
import { describe, expect, it } from "vitest";
import { parseEngineObject, parseEngineObjects } from "@/lib/admission/engines/sources";
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
