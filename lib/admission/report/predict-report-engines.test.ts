/** The predict report names the engine policy behind each called hook and policy, when known. */
import { describe, expect, it } from "vitest";
import { buildRequest, predictReport } from "@/lib/admission/report/predict-report";
import {
  gatekeeperValidatingConfiguration,
  kyvernoGeneratedBinding,
  kyvernoGeneratedPolicy,
} from "@/lib/admission/engines/engine-objects";
import { builtinDiscovery } from "@/lib/admission/report/resources";
import { recogniseOwnership } from "@/lib/admission/engines/ownership";
import { parseEngineObjects } from "@/lib/admission/engines/sources";
import { gatekeeperConstraint } from "@/lib/admission/engines/engine-objects";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";

const RULES = [
  { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
];

const source = { kind: "ClusterPolicy" as const, name: "require-labels", uid: "k1" };
const policy = kyvernoGeneratedPolicy(source);
const snapshot: AdmissionSnapshot = {
  namespaces: { team: { "kubernetes.io/metadata.name": "team" } },
  validatingWebhookConfigurations: [gatekeeperValidatingConfiguration({ rules: RULES })],
  validatingAdmissionPolicies: [
    { ...policy, spec: { ...policy.spec, matchConstraints: { resourceRules: RULES } } },
  ],
  validatingAdmissionPolicyBindings: [kyvernoGeneratedBinding(source)],
};

function report(withOwnership: boolean) {
  const built = buildRequest(
    {
      operation: "CREATE",
      subresource: "",
      resource: undefined,
      namespace: "team",
      name: undefined,
      dryRun: false,
      namespaceLabels: undefined,
      user: undefined,
      groups: [],
    },
    {
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "team" } },
      oldObject: undefined,
      discovery: builtinDiscovery(),
      namespaces: snapshot.namespaces ?? {},
      namespacesFrom: "files",
      identity: undefined,
    },
  );
  const sources = parseEngineObjects([
    gatekeeperConstraint({ kind: "K8sRequiredLabels", name: "x" }),
  ]);
  return predictReport(
    built.request,
    built.report,
    snapshot,
    [],
    withOwnership ? recogniseOwnership(snapshot, sources) : undefined,
  );
}

describe("predict report: engine owners", () => {
  it("names the engine and its policy on each call", () => {
    const calls = report(true).calls.map((c) => [c.hook.name, c.owner]);
    expect(calls).toEqual([
      [
        "cpol-require-labels-binding",
        {
          engine: "kyverno",
          certainty: "proof",
          sourcePolicy: {
            engine: "kyverno",
            apiVersion: "kyverno.io/v1",
            kind: "ClusterPolicy",
            name: "require-labels",
          },
        },
      ],
      ["validation.gatekeeper.sh", { engine: "gatekeeper", certainty: "strong" }],
      ["check-ignore-label.gatekeeper.sh", { engine: "gatekeeper", certainty: "strong" }],
    ]);
  });

  it("adds nothing without ownership", () => {
    expect(report(false).calls.every((c) => !("owner" in c))).toBe(true);
  });
});
