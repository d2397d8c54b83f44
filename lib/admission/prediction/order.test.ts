import { describe, expect, it } from "vitest";
import { byName, compileSnapshot } from "@/lib/admission/matching/compile";
import {
  effectiveOrder,
  planReinvocation,
  worstCaseLatency,
} from "@/lib/admission/prediction/order";
import { predict } from "@/lib/admission/prediction/predict";
import { makeRequest } from "@/lib/admission/model/request";
import { hook } from "@/lib/admission/model/test-helpers";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";

const podCreate = makeRequest({
  resource: "pods",
  operation: "CREATE",
  kind: { kind: "Pod" },
  namespace: "default",
  name: "p",
  object: { metadata: { name: "p" } },
});
const namespaces = { default: { "kubernetes.io/metadata.name": "default" } };

describe("configuration order (mutating_webhook_manager.go ByName: a.Name < b.Name, stable)", () => {
  it.each([
    { names: ["b", "a", "C"], want: ["C", "a", "b"] },
    { names: ["9-x", "10-x"], want: ["10-x", "9-x"] },
    { names: ["é", "z"], want: ["z", "é"] },
  ])("sorts $names byte-wise", ({ names, want }) => {
    expect(
      byName(names.map((name) => ({ metadata: { name } }))).map((c) => c.metadata.name),
    ).toEqual(want);
  });

  it("hooks keep their position and get the UID <config>/<name>/<n>", () => {
    const s = compileSnapshot({
      mutatingWebhookConfigurations: [
        { metadata: { name: "z" }, webhooks: [hook("a"), hook("a")] },
        { metadata: { name: "m" }, webhooks: [hook("b")] },
      ],
    });
    expect(s.mutating.map((h) => h.id.key)).toEqual(["m/b/0", "z/a/0", "z/a/1"]);
    expect(effectiveOrder(s).map((o) => `${o.stage}:${o.index}`)).toEqual([
      "mutating-webhook:0",
      "mutating-webhook:1",
      "mutating-webhook:2",
    ]);
  });

  it("InitializerConfiguration: configuration name, then position (§6.1)", () => {
    const s = compileSnapshot({
      initializerConfigurations: [
        {
          metadata: { name: "b" },
          initializers: [
            { name: "x", rules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }] },
          ],
        },
        {
          metadata: { name: "a" },
          initializers: [
            { name: "y", rules: [{ apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }] },
            { name: "z" },
          ],
        },
      ],
    });
    expect(s.initializers.map((i) => i.id.name)).toEqual(["y", "z", "x"]);
    expect(
      predict(podCreate, s)
        .prediction.calls.filter((c) => c.stage === "initializer")
        .map((c) => c.hook.name),
    ).toEqual(["y", "x"]);
  });
});

describe("reinvocation (reinvocation.go, mutating/reinvocationcontext.go)", () => {
  const calls = (...p: Array<"Never" | "IfNeeded">) =>
    p.map((reinvocationPolicy, i) => ({
      key: `h${i}`,
      stage: "mutating-webhook" as const,
      reinvocationPolicy,
      timeoutSeconds: 10,
    }));
  it("only IfNeeded hooks that ran in round 0 are candidates", () => {
    expect(planReinvocation(calls("Never", "IfNeeded", "Never")).map((x) => x.call.key)).toEqual([
      "h1",
    ]);
  });
  it("a later mutator is the likely trigger; the last hook depends on round-1 changes", () => {
    const plan = planReinvocation(calls("IfNeeded", "IfNeeded"));
    expect(plan[0]?.trigger).toEqual({ kind: "later-mutator", after: ["h1"] });
    expect(plan[1]?.trigger).toEqual({ kind: "round-one-change" });
  });
  it("no round 1 without any round-0 mutator", () => {
    expect(planReinvocation([])).toEqual([]);
  });
});

describe("predicted order across plugins (§3.1, §5.3)", () => {
  const snap: AdmissionSnapshot = {
    namespaces,
    mutatingWebhookConfigurations: [
      {
        metadata: { name: "b" },
        webhooks: [hook("m2", { reinvocationPolicy: "IfNeeded", timeoutSeconds: 5 })],
      },
      { metadata: { name: "a" }, webhooks: [hook("m1", { timeoutSeconds: 3 })] },
    ],
    validatingWebhookConfigurations: [
      { metadata: { name: "v" }, webhooks: [hook("v1", { timeoutSeconds: 7 }), hook("v2")] },
    ],
    mutatingAdmissionPolicies: [
      {
        metadata: { name: "map" },
        spec: {
          matchConstraints: {
            resourceRules: [
              { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
            ],
          },
          mutations: [],
          reinvocationPolicy: "IfNeeded",
        },
      },
    ],
    mutatingAdmissionPolicyBindings: [{ metadata: { name: "mapb" }, spec: { policyName: "map" } }],
  };
  const p = predict(podCreate, snap).prediction;
  it("MAP, then mutating webhooks by config name, then validating in parallel", () => {
    expect(p.calls.filter((c) => c.round === 0).map((c) => `${c.stage}:${c.hook.name}`)).toEqual([
      "mutating-policy:mapb",
      "mutating-webhook:m1",
      "mutating-webhook:m2",
      "validating-webhook:v1",
      "validating-webhook:v2",
    ]);
    expect(p.calls.filter((c) => c.stage === "validating-webhook").every((c) => c.parallel)).toBe(
      true,
    );
  });
  it("round 1 lists the IfNeeded MAP and webhook as possible", () => {
    expect(
      p.calls.filter((c) => c.round === 1).map((c) => `${c.hook.name}:${c.certainty}`),
    ).toEqual(["mapb:possible", "m2:possible"]);
  });
  it("worst case = serial mutating (both rounds) + max validating", () => {
    expect(p.worstCaseLatencySeconds).toBe(3 + 5 + 5 + 10);
    expect(worstCaseLatency([1, 2], [3, 9])).toBe(12);
  });
});
