import { describe, expect, it } from "vitest";
import type {
  V1MutatingWebhookConfiguration,
  V1ValidatingAdmissionPolicy,
  V1ValidatingAdmissionPolicyBinding,
} from "@/lib/k8s/types";
import { orderModel, type PolicySnapshot } from "./order-view";

const rule = { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] };

describe("orderModel with admission policies", () => {
  it("lists mutating policies before the webhooks and validating policies in their own stage", () => {
    const policies = {
      validatingAdmissionPolicies: [
        {
          metadata: { name: "vp" },
          spec: {
            failurePolicy: "Fail",
            matchConstraints: { resourceRules: [rule] },
            validations: [{ expression: "true" }],
          },
        } as V1ValidatingAdmissionPolicy,
      ],
      validatingAdmissionPolicyBindings: [
        { metadata: { name: "vb" }, spec: { policyName: "vp", validationActions: ["Warn"] } },
        { metadata: { name: "orphan" }, spec: { policyName: "nope", validationActions: ["Deny"] } },
      ] as V1ValidatingAdmissionPolicyBinding[],
      mutatingAdmissionPolicies: [
        {
          metadata: { name: "mp" },
          spec: {
            failurePolicy: "Fail",
            reinvocationPolicy: "Never",
            matchConstraints: { resourceRules: [rule] },
            mutations: [{ patchType: "JSONPatch", jsonPatch: { expression: "[]" } }],
          },
        },
      ],
      mutatingAdmissionPolicyBindings: [{ metadata: { name: "mb" }, spec: { policyName: "mp" } }],
    } as PolicySnapshot;
    const mutating: V1MutatingWebhookConfiguration[] = [
      {
        metadata: { name: "hooks" },
        webhooks: [
          {
            name: "a.example.com",
            admissionReviewVersions: ["v1"],
            sideEffects: "None",
            clientConfig: { url: "https://127.0.0.1:9/a" },
            rules: [rule],
          },
        ],
      },
    ];
    const m = orderModel(mutating, [], policies);
    expect(m.mutatingPolicies).toEqual([
      expect.objectContaining({ policy: "mp", binding: "mb", stage: "mutating-policy" }),
    ]);
    expect(m.mutating.map((e) => e.hook)).toEqual(["a.example.com"]);
    expect(m.validatingPolicies).toEqual(
      [
        expect.objectContaining({ policy: "nope", binding: "orphan", policyMissing: true }),
        expect.objectContaining({ policy: "vp", binding: "vb", validationActions: ["Warn"] }),
      ].sort(() => 0),
    );
    // Policies add no webhook latency.
    expect(orderModel(mutating, []).worstCaseSeconds).toBe(m.worstCaseSeconds);
  });

  it("puts a mutating policy with reinvocationPolicy IfNeeded in the reinvocation round, before the hooks", () => {
    const policy = (name: string, reinvocationPolicy: string) => ({
      metadata: { name },
      spec: {
        failurePolicy: "Fail",
        reinvocationPolicy,
        matchConstraints: { resourceRules: [rule] },
        mutations: [{ patchType: "JSONPatch", jsonPatch: { expression: "[]" } }],
      },
    });
    const policies = {
      mutatingAdmissionPolicies: [policy("again", "IfNeeded"), policy("once", "Never")],
      mutatingAdmissionPolicyBindings: [
        { metadata: { name: "again-b" }, spec: { policyName: "again" } },
        { metadata: { name: "once-b" }, spec: { policyName: "once" } },
        { metadata: { name: "gone-b" }, spec: { policyName: "gone" } },
      ],
    } as PolicySnapshot;
    const hook = (name: string, reinvocationPolicy: string) => ({
      name,
      admissionReviewVersions: ["v1"],
      sideEffects: "None",
      clientConfig: { url: "https://127.0.0.1:9/a" },
      rules: [rule],
      reinvocationPolicy,
    });
    const m = orderModel(
      [{ metadata: { name: "hooks" }, webhooks: [hook("a.example.com", "Never")] }],
      [],
      policies,
    );
    expect(m.policyReinvocation).toEqual([
      {
        entry: expect.objectContaining({ policy: "again", binding: "again-b" }),
        trigger: { kind: "later-mutator", after: expect.any(Array) },
      },
    ]);
    // What may change the object after it in round 0: the other policy and the webhook.
    const [first] = m.policyReinvocation;
    expect(first?.trigger.kind === "later-mutator" && first.trigger.after.length).toBe(2);
    expect(m.reinvocation).toEqual([]);
  });
});

describe("orderModel with static objects", () => {
  it("puts the static hooks and policies first within their stage, each with its file", () => {
    const hook = (name: string) => ({
      name,
      clientConfig: { url: "https://example.com/hook" },
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      rules: [rule],
    });
    const origin = (plugin: "MutatingAdmissionWebhook" | "ValidatingAdmissionPolicy") => ({
      kind: "manifest" as const,
      plugin,
      file: `/etc/manifests/${plugin}.yaml`,
    });
    const model = orderModel(
      [{ metadata: { name: "a-api" }, webhooks: [hook("api.example.com")] }],
      [],
      {},
      {
        mutatingWebhookConfigurations: [
          { metadata: { name: "z.static.k8s.io" }, webhooks: [hook("static.example.com")] },
        ],
        validatingWebhookConfigurations: [],
        validatingAdmissionPolicies: [
          {
            metadata: { name: "p.static.k8s.io" },
            spec: {
              failurePolicy: "Fail",
              matchConstraints: { resourceRules: [rule] },
              validations: [{ expression: "true" }],
            },
          },
        ],
        validatingAdmissionPolicyBindings: [
          {
            metadata: { name: "b.static.k8s.io" },
            spec: { policyName: "p.static.k8s.io", validationActions: ["Deny"] },
          },
        ],
        mutatingAdmissionPolicies: [],
        mutatingAdmissionPolicyBindings: [],
        origins: {
          "MutatingWebhookConfiguration/z.static.k8s.io": origin("MutatingAdmissionWebhook"),
          "ValidatingAdmissionPolicy/p.static.k8s.io": origin("ValidatingAdmissionPolicy"),
          "ValidatingAdmissionPolicyBinding/b.static.k8s.io": origin("ValidatingAdmissionPolicy"),
        },
      },
    );
    // Before "a-api" although it sorts after it: static ones run first within their plugin.
    expect(model.mutating.map((e) => [e.configuration, e.origin?.file])).toEqual([
      ["z.static.k8s.io", "/etc/manifests/MutatingAdmissionWebhook.yaml"],
      ["a-api", undefined],
    ]);
    expect(model.validatingPolicies.map((e) => [e.policy, e.origin?.plugin])).toEqual([
      ["p.static.k8s.io", "ValidatingAdmissionPolicy"],
    ]);
  });
});
