import { describe, expect, it } from "vitest";
import {
  gatekeeperConstraint,
  gatekeeperGeneratedBinding,
  gatekeeperGeneratedPolicy,
  gatekeeperTemplate,
  gatekeeperValidatingConfiguration,
} from "@/lib/admission/engines/engine-objects";
import { recogniseOwnership } from "@/lib/admission/engines/ownership";
import { parseEngineObjects } from "@/lib/admission/engines/sources";
import type { LintStateData } from "@/lib/api/webhooks";
import type { V1ValidatingAdmissionPolicy } from "@/lib/k8s/types";
import { lintConfigurations } from "@/lib/webhooks/findings";
import { engineFindings, ownedPolicies } from "./lint";

const sources = parseEngineObjects([
  gatekeeperTemplate({ name: "k8srequiredlabels", kind: "K8sRequiredLabels", uid: "t" }),
  gatekeeperConstraint({ kind: "K8sRequiredLabels", name: "must-have-owner", uid: "c" }),
]);
const plain: V1ValidatingAdmissionPolicy = {
  metadata: { name: "plain" },
  spec: { validations: [{ expression: "true" }] },
};
const objects = {
  validatingWebhookConfigurations: [gatekeeperValidatingConfiguration()],
  mutatingWebhookConfigurations: [],
  validatingAdmissionPolicies: [
    gatekeeperGeneratedPolicy({ name: "k8srequiredlabels", kind: "K8sRequiredLabels", uid: "t" }),
    plain,
  ],
  validatingAdmissionPolicyBindings: [
    gatekeeperGeneratedBinding({ kind: "K8sRequiredLabels", name: "must-have-owner", uid: "c" }),
  ],
};
const ownership = recogniseOwnership(objects, sources);

describe("ownedPolicies", () => {
  it("keeps the admission policies and bindings an engine owns, and only those", () => {
    const { lists, count } = ownedPolicies(objects, ownership);
    expect(count).toBe(2);
    expect(lists.validatingAdmissionPolicies?.map((p) => p.metadata?.name)).toEqual([
      "gatekeeper-k8srequiredlabels",
    ]);
    expect(lists.validatingAdmissionPolicyBindings?.map((p) => p.metadata?.name)).toEqual([
      "gatekeeper-k8srequiredlabels-must-have-owner",
    ]);
    expect(lists.mutatingAdmissionPolicies).toEqual([]);
  });
});

describe("the engine checks where the dashboard runs them", () => {
  it("gives the Engines page each engine's findings, naming the engine policy", () => {
    const byEngine = engineFindings(objects, sources, ownership, {});
    const l20 = byEngine.gatekeeper?.find((f) => f.id === "L20");
    expect(l20?.sourcePolicy).toMatchObject({ kind: "K8sRequiredLabels", name: "must-have-owner" });
    expect(byEngine.kyverno).toBeUndefined();
  });

  it("lets the webhook pages raise L20 from the lint state's engine part, and not without it", () => {
    const live: LintStateData = { namespaces: {}, discovery: [], notices: [] };
    const { lists } = ownedPolicies(objects, ownership);
    const withEngines = lintConfigurations([], objects.validatingWebhookConfigurations, {
      ...live,
      engines: { ...lists, sources },
    });
    expect(withEngines.find((f) => f.id === "L20")?.objects).toContainEqual(
      expect.objectContaining({
        kind: "ValidatingWebhookConfiguration",
        hook: "validation.gatekeeper.sh",
      }),
    );
    const without = lintConfigurations([], objects.validatingWebhookConfigurations, live);
    expect(without.filter((f) => ["L20", "L21", "L22"].includes(f.id))).toEqual([]);
  });
});
