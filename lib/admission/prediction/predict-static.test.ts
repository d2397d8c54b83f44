import { describe, expect, it } from "vitest";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { effectiveOrder } from "@/lib/admission/prediction/order";
import { predict } from "@/lib/admission/prediction/predict";
import { makeRequest } from "@/lib/admission/model/request";
import { hook } from "@/lib/admission/model/test-helpers";
import { manifestOriginKey, type ManifestOrigin } from "@/lib/admission/model/manifests";
import { withManifests, type AdmissionSnapshot } from "@/lib/admission/model/snapshot";

const any = [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] }];
const namespaces = { default: { "kubernetes.io/metadata.name": "default" } };

const vwcOrigin: ManifestOrigin = {
  kind: "manifest",
  plugin: "ValidatingAdmissionWebhook",
  file: "/m/vwc/a.yaml",
};
const mwcOrigin: ManifestOrigin = {
  kind: "manifest",
  plugin: "MutatingAdmissionWebhook",
  file: "/m/mwc/a.yaml",
};
const vapOrigin: ManifestOrigin = {
  kind: "manifest",
  plugin: "ValidatingAdmissionPolicy",
  file: "/m/vap/a.yaml",
};

function policy(name: string) {
  return {
    metadata: { name },
    spec: {
      matchConstraints: { resourceRules: any },
      validations: [{ expression: "true" }],
      failurePolicy: "Fail",
    },
  };
}

function binding(name: string, policyName: string) {
  return { metadata: { name }, spec: { policyName, validationActions: ["Deny"] } };
}

/** API hooks named to sort before the static ones, so order proves static-first, not name order. */
function snapshot(): AdmissionSnapshot {
  const api: AdmissionSnapshot = {
    namespaces,
    validatingWebhookConfigurations: [
      { metadata: { name: "a-api" }, webhooks: [hook("v.api", { rules: any })] },
    ],
    mutatingWebhookConfigurations: [
      {
        metadata: { name: "a-api" },
        webhooks: [hook("m.api", { rules: any, reinvocationPolicy: "IfNeeded" })],
      },
    ],
    validatingAdmissionPolicies: [policy("a-api")],
    validatingAdmissionPolicyBindings: [
      binding("a-api", "a-api"),
      // An API binding naming a static policy: the API source knows no such policy.
      binding("b-api-to-static", "z.static.k8s.io"),
    ],
  };
  return withManifests(api, {
    validatingWebhookConfigurations: [
      { metadata: { name: "z.static.k8s.io" }, webhooks: [hook("v.static", { rules: any })] },
    ],
    mutatingWebhookConfigurations: [
      {
        metadata: { name: "z.static.k8s.io" },
        webhooks: [hook("m.static", { rules: any, reinvocationPolicy: "IfNeeded" })],
      },
    ],
    validatingAdmissionPolicies: [policy("z.static.k8s.io")],
    validatingAdmissionPolicyBindings: [binding("z.static.k8s.io", "z.static.k8s.io")],
    mutatingAdmissionPolicies: [],
    mutatingAdmissionPolicyBindings: [],
    origins: {
      [manifestOriginKey("ValidatingWebhookConfiguration", "z.static.k8s.io")]: vwcOrigin,
      [manifestOriginKey("MutatingWebhookConfiguration", "z.static.k8s.io")]: mwcOrigin,
      [manifestOriginKey("ValidatingAdmissionPolicy", "z.static.k8s.io")]: vapOrigin,
      [manifestOriginKey("ValidatingAdmissionPolicyBinding", "z.static.k8s.io")]: vapOrigin,
    },
  });
}

const pod = makeRequest({
  resource: "pods",
  operation: "CREATE",
  namespace: "default",
  kind: { kind: "Pod" },
  object: { metadata: {} },
});

describe("static hooks and policies (manifest-based admission)", () => {
  it("run first within their plugin, marked with their origin", () => {
    const compiled = compileSnapshot(snapshot());
    expect(compiled.mutatingStatic).toBe(1);
    expect(compiled.validatingStatic).toBe(1);
    const order = effectiveOrder(compiled).map((o) => [o.stage, o.hook.key, o.hook.origin?.file]);
    expect(order).toEqual([
      ["mutating-webhook", "z.static.k8s.io/m.static/0", "/m/mwc/a.yaml"],
      ["mutating-webhook", "a-api/m.api/0", undefined],
      ["validating-policy", "z.static.k8s.io/z.static.k8s.io", "/m/vap/a.yaml"],
      ["validating-policy", "a-api/a-api", undefined],
      ["validating-policy", "z.static.k8s.io/b-api-to-static", undefined],
      ["validating-webhook", "z.static.k8s.io/v.static/0", "/m/vwc/a.yaml"],
      ["validating-webhook", "a-api/v.api/0", undefined],
    ]);
  });

  it("an API binding naming a static policy finds no policy", () => {
    const p = predict(pod, snapshot()).prediction;
    const skip = p.skips.find((s) => s.hook.name === "b-api-to-static");
    expect(skip?.reason.code).toBe("policy-missing");
  });

  it("are called in order for an ordinary request, reinvocation crossing the line", () => {
    const p = predict(pod, snapshot()).prediction;
    expect(p.calls.map((c) => [c.stage, c.round, c.key])).toEqual([
      ["mutating-webhook", 0, "MutatingWebhookConfiguration:z.static.k8s.io/m.static/0"],
      ["mutating-webhook", 0, "MutatingWebhookConfiguration:a-api/m.api/0"],
      ["mutating-webhook", 1, "MutatingWebhookConfiguration:z.static.k8s.io/m.static/0"],
      ["mutating-webhook", 1, "MutatingWebhookConfiguration:a-api/m.api/0"],
      ["validating-policy", 0, "ValidatingAdmissionPolicy:z.static.k8s.io/z.static.k8s.io"],
      ["validating-policy", 0, "ValidatingAdmissionPolicy:a-api/a-api"],
      ["validating-webhook", 0, "ValidatingWebhookConfiguration:z.static.k8s.io/v.static/0"],
      ["validating-webhook", 0, "ValidatingWebhookConfiguration:a-api/v.api/0"],
    ]);
  });

  it("static webhooks alone see a webhook configuration write; every policy sees it", () => {
    const req = makeRequest({
      group: "admissionregistration.k8s.io",
      resource: "validatingwebhookconfigurations",
      operation: "CREATE",
      name: "x",
      kind: { kind: "ValidatingWebhookConfiguration" },
      object: { metadata: { name: "x" } },
    });
    const p = predict(req, snapshot()).prediction;
    expect(p.calls.filter((c) => c.round === 0).map((c) => c.key)).toEqual([
      "MutatingWebhookConfiguration:z.static.k8s.io/m.static/0",
      "ValidatingAdmissionPolicy:z.static.k8s.io/z.static.k8s.io",
      "ValidatingAdmissionPolicy:a-api/a-api",
      "ValidatingWebhookConfiguration:z.static.k8s.io/v.static/0",
    ]);
    expect(p.exclusions.webhooks?.code).toBe("admission-configuration");
    const apiSkip = p.skips.find((s) => s.key === "ValidatingWebhookConfiguration:a-api/v.api/0");
    expect(apiSkip?.reason.code).toBe("excluded");
  });

  it("static policies alone see a policy write", () => {
    const req = makeRequest({
      group: "admissionregistration.k8s.io",
      resource: "validatingadmissionpolicies",
      operation: "CREATE",
      name: "x",
      kind: { kind: "ValidatingAdmissionPolicy" },
      object: { metadata: { name: "x" } },
    });
    const p = predict(req, snapshot()).prediction;
    expect(p.calls.filter((c) => c.round === 0).map((c) => c.key)).toEqual([
      "MutatingWebhookConfiguration:z.static.k8s.io/m.static/0",
      "ValidatingAdmissionPolicy:z.static.k8s.io/z.static.k8s.io",
      "ValidatingWebhookConfiguration:z.static.k8s.io/v.static/0",
    ]);
  });

  it("nothing sees the virtual auth resources", () => {
    const req = makeRequest({
      group: "authentication.k8s.io",
      resource: "tokenreviews",
      operation: "CREATE",
      kind: { kind: "TokenReview" },
      object: { metadata: {} },
    });
    expect(predict(req, snapshot()).prediction.calls).toEqual([]);
  });

  it("without manifests the compiled snapshot is unchanged", () => {
    const compiled = compileSnapshot({ namespaces });
    expect(compiled.mutatingStatic).toBe(0);
    expect(compiled.validatingStatic).toBe(0);
  });
});
