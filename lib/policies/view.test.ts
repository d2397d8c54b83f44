import { describe, expect, it } from "vitest";
import { bindingScope, policyRows, warningsAt, type PolicyLike } from "./view";

const rule = { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] };
const vap = (name: string, extra: PolicyLike["spec"] = {}): PolicyLike => ({
  metadata: { name },
  spec: {
    matchConstraints: { resourceRules: [rule] },
    validations: [{ expression: "true" }],
    ...extra,
  },
});
const vapb = (name: string, policyName: string, actions: string[]) => ({
  metadata: { name },
  spec: { policyName, validationActions: actions },
});

describe("policyRows", () => {
  const rows = policyRows([
    {
      resource: "validatingadmissionpolicies",
      kind: "ValidatingAdmissionPolicy",
      items: [vap("bound", { failurePolicy: "Ignore" }), vap("lonely")],
    },
    {
      resource: "validatingadmissionpolicybindings",
      kind: "ValidatingAdmissionPolicyBinding",
      items: [
        vapb("b1", "bound", ["Warn", "Audit"]),
        vapb("b2", "bound", ["Deny"]),
        vapb("b3", "gone", ["Deny"]),
      ],
    },
  ]);
  it("joins bindings to their policy and marks a policy without one inert", () => {
    const bound = rows.policies.find((p) => p.name === "bound");
    expect(bound).toMatchObject({
      inert: false,
      actions: ["Audit", "Deny", "Warn"],
      failurePolicy: "Ignore",
      failurePolicyDefaulted: false,
      resources: "CREATE pods",
    });
    expect(bound?.bindings.map((b) => b.metadata?.name)).toEqual(["b1", "b2"]);
    expect(rows.policies.find((p) => p.name === "lonely")).toMatchObject({
      inert: true,
      failurePolicy: "Fail",
      failurePolicyDefaulted: true,
    });
  });
  it("flags a binding whose policy does not exist", () => {
    expect(rows.bindings.find((b) => b.name === "b3")?.policyExists).toBe(false);
    expect(rows.bindings.find((b) => b.name === "b1")?.policyExists).toBe(true);
  });
});

describe("bindingScope", () => {
  it("keeps what the policy matches when the binding names no resourceRules", () => {
    expect(bindingScope(undefined)).toBe("all the policy matches");
    expect(bindingScope({ namespaceSelector: { matchLabels: { team: "a" } } })).toBe(
      "all the policy matches · namespaces {team=a}",
    );
    expect(bindingScope({ resourceRules: [{ ...rule, resourceNames: ["x"] }] })).toBe(
      "CREATE pods named x",
    );
  });
});

describe("warningsAt", () => {
  it("returns the type-checking warnings of one field", () => {
    const p: PolicyLike = {
      status: {
        typeChecking: {
          expressionWarnings: [
            { fieldRef: "spec.validations[0].expression", warning: "undefined field 'x'" },
            { fieldRef: "spec.validations[1].expression", warning: "other" },
          ],
        },
      },
    };
    expect(warningsAt(p, "spec.validations[0].expression")).toEqual(["undefined field 'x'"]);
    expect(warningsAt(p, "spec.variables[0].expression")).toEqual([]);
  });
});
