import { describe, expect, it } from "vitest";
import { applyDefaults } from "./defaults";
import { kindInfoFor } from "./kind-info";

describe("applyDefaults", () => {
  it("SetDefaults_ValidatingWebhook / Rule / ServiceReference (v1): no sideEffects or admissionReviewVersions default", () => {
    const k = kindInfoFor("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration")!;
    const out = applyDefaults(k, {
      webhooks: [
        { name: "a.b.c", clientConfig: { service: { name: "s", namespace: "n" } }, rules: [{}] },
      ],
    });
    expect(out.webhooks).toEqual([
      {
        name: "a.b.c",
        clientConfig: { service: { name: "s", namespace: "n", port: 443 } },
        rules: [{ scope: "*" }],
        failurePolicy: "Fail",
        matchPolicy: "Equivalent",
        namespaceSelector: {},
        objectSelector: {},
        timeoutSeconds: 10,
        reinvocationPolicy: "Never",
      },
    ]);
  });
  it("v1beta1 (historical) defaults: Ignore, Exact, 30 s, Unknown, [v1beta1]", () => {
    const k = kindInfoFor(
      "admissionregistration.k8s.io/v1beta1",
      "ValidatingWebhookConfiguration",
    )!;
    expect(applyDefaults(k, { webhooks: [{}] }).webhooks).toEqual([
      {
        failurePolicy: "Ignore",
        matchPolicy: "Exact",
        namespaceSelector: {},
        objectSelector: {},
        sideEffects: "Unknown",
        timeoutSeconds: 30,
        admissionReviewVersions: ["v1beta1"],
      },
    ]);
  });
  it("SetDefaults_ValidatingAdmissionPolicySpec / MatchResources", () => {
    const k = kindInfoFor("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy")!;
    expect(applyDefaults(k, { spec: { matchConstraints: { resourceRules: [{}] } } }).spec).toEqual({
      failurePolicy: "Fail",
      matchConstraints: {
        resourceRules: [{ scope: "*" }],
        matchPolicy: "Equivalent",
        namespaceSelector: {},
        objectSelector: {},
      },
    });
  });
  it("does not mutate its input", () => {
    const k = kindInfoFor("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration")!;
    const input = { webhooks: [{}] };
    applyDefaults(k, input);
    expect(input).toEqual({ webhooks: [{}] });
  });
});
