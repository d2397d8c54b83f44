import { describe, expect, it } from "vitest";
import { compileSnapshot } from "@/lib/admission/compile";
import { explainSkip, predict, predictCompiled, predictionToJSON } from "@/lib/admission/predict";
import { makeRequest } from "@/lib/admission/request";
import { hook, validatingSnapshot } from "@/lib/admission/test-helpers";

const any = [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] }];

describe("exclusions before any hook (generic/webhook.go Dispatch, policy/generic/plugin.go Dispatch)", () => {
  it.each([
    {
      mirrors: "IsExemptAdmissionConfigurationResource (by kind)",
      req: makeRequest({
        group: "admissionregistration.k8s.io",
        resource: "validatingwebhookconfigurations",
        operation: "DELETE",
        name: "x",
        kind: { kind: "ValidatingWebhookConfiguration" },
      }),
      webhooks: "admission-configuration",
      policies: undefined,
    },
    {
      mirrors: "policy admissionResources (by resource)",
      req: makeRequest({
        group: "admissionregistration.k8s.io",
        resource: "validatingadmissionpolicies",
        operation: "DELETE",
        name: "x",
        kind: { kind: "ValidatingAdmissionPolicy" },
      }),
      webhooks: "admission-configuration",
      policies: "admission-configuration",
    },
    {
      mirrors: "exclusion.Excluded: tokenreviews",
      req: makeRequest({
        group: "authentication.k8s.io",
        resource: "tokenreviews",
        operation: "CREATE",
        kind: { kind: "TokenReview" },
        object: { metadata: {} },
      }),
      webhooks: "virtual-resource",
      policies: "virtual-resource",
    },
    {
      mirrors: "pods are not exempt",
      req: makeRequest({
        resource: "pods",
        operation: "CREATE",
        namespace: "default",
        kind: { kind: "Pod" },
        object: { metadata: {} },
      }),
      webhooks: undefined,
      policies: undefined,
    },
  ])("$mirrors", ({ req, webhooks, policies }) => {
    const p = predict(req, validatingSnapshot([hook("h", { rules: any })]));
    expect(p.exclusions.webhooks?.code).toBe(webhooks);
    expect(p.exclusions.policies?.code).toBe(policies);
    expect(p.calls.length).toBe(webhooks ? 0 : 1);
  });

  it("with ExcludeAdmissionWebhookVirtualResources off, webhooks see tokenreviews", () => {
    const req = makeRequest({
      group: "authentication.k8s.io",
      resource: "tokenreviews",
      operation: "CREATE",
      kind: { kind: "TokenReview" },
      object: { metadata: {} },
    });
    expect(
      predict(
        req,
        validatingSnapshot([hook("h", { rules: any })], { excludeVirtualResources: false }),
      ).calls,
    ).toHaveLength(1);
  });
});

describe("prediction output", () => {
  const s = compileSnapshot(
    validatingSnapshot([
      hook("called"),
      hook("wrong-op", {
        rules: [
          { operations: ["DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
        ],
      }),
      hook("ns", {
        namespaceSelector: {
          matchExpressions: [{ key: "runlevel", operator: "NotIn", values: ["0", "1"] }],
        },
      }),
      hook("cond", {
        matchConditions: [
          { name: "authz", expression: "authorizer.requestResource.check('x').allowed()" },
        ],
      }),
    ]),
  );
  const req = makeRequest({
    resource: "pods",
    operation: "CREATE",
    namespace: "kube-system",
    name: "p",
    kind: { kind: "Pod" },
    object: { metadata: { name: "p" } },
  });
  const p = predictCompiled(req, s);

  it("lists calls, skips with sentences and indeterminate hooks", () => {
    expect(p.calls.map((c) => c.key)).toEqual(["ValidatingWebhookConfiguration:cfg/called/0"]);
    expect(p.skips.map((x) => [x.hook.name, x.reason.code])).toEqual([
      ["wrong-op", "rules"],
      ["ns", "namespace-selector"],
    ]);
    expect(explainSkip(p, p.skips[0]!).message).toBe(
      "no rule matches CREATE core/v1/pods: rule 0: operation CREATE is not in [DELETE]",
    );
    expect(explainSkip(p, p.skips[1]!).message).toContain(
      'label runlevel is "0", which is in (0,1)',
    );
    expect(p.indeterminate).toMatchObject([{ hook: { name: "cond" }, condition: "authz" }]);
  });

  it("serialises skips with their explanation", () => {
    const all = JSON.parse(JSON.stringify(predictionToJSON(p))) as {
      skips: Array<{ message: string; reason: { namespace: unknown[] } }>;
    };
    const json = all.skips[1]!;
    expect(json.message).toContain("namespaceSelector");
    expect(json.reason.namespace).toHaveLength(1);
  });

  it("counts an undecided hook in the worst case", () => {
    expect(p.worstCaseLatencySeconds).toBe(10);
  });

  it("a mutating failure stops the chain (dispatcher returns the StatusError)", () => {
    const snap = {
      namespaces: {},
      mutatingWebhookConfigurations: [
        {
          metadata: { name: "a" },
          webhooks: [
            hook("first"),
            hook("sel", { namespaceSelector: { matchLabels: { a: "b" } } }),
            hook("after"),
          ],
        },
      ],
      validatingWebhookConfigurations: [{ metadata: { name: "v" }, webhooks: [hook("v")] }],
    };
    const out = predict(
      makeRequest({
        resource: "pods",
        operation: "CREATE",
        namespace: "ghost",
        kind: { kind: "Pod" },
        object: { metadata: {} },
      }),
      snap,
    );
    expect(out.calls.map((c) => c.hook.name)).toEqual(["first"]);
    expect(out.failure).toMatchObject({ status: 404, hook: { name: "sel" } });
    expect(out.skips.map((x) => `${x.hook.name}:${x.reason.code}`)).toEqual([
      "after:not-reached",
      "v:not-reached",
    ]);
  });
});
