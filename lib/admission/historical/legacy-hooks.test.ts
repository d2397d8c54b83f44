import { describe, expect, it } from "vitest";
import { compileLegacy, predictLegacy } from "@/lib/admission/historical/legacy-hooks";
import { legacyOrder, v1beta1Settings } from "@/lib/admission/historical/legacy-order";
import { makeRequest } from "@/lib/admission/model/request";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";

const podsCreate = {
  operations: ["CREATE"],
  apiGroups: [""],
  apiVersions: ["v1"],
  resources: ["pods"],
};

// v1beta1 objects as the legacy group serves them (apiVersion of that group).
const snapshot: AdmissionSnapshot = {
  legacyMutatingWebhookConfigurations: [
    {
      apiVersion: "admission.portcullis.dev/v1beta1",
      metadata: { name: "zz-inject" },
      webhooks: [{ name: "inject.example.com", clientConfig: {}, rules: [podsCreate] }],
    },
    {
      apiVersion: "admission.portcullis.dev/v1beta1",
      metadata: { name: "aa-defaults" },
      webhooks: [
        {
          name: "labels.example.com",
          clientConfig: {},
          rules: [podsCreate],
          reinvocationPolicy: "IfNeeded",
          failurePolicy: "Fail",
          timeoutSeconds: 5,
        },
        {
          name: "prod-only.example.com",
          clientConfig: {},
          rules: [podsCreate],
          namespaceSelector: { matchLabels: { env: "prod" } },
        },
      ],
    },
  ],
  legacyValidatingWebhookConfigurations: [
    {
      apiVersion: "admission.portcullis.dev/v1beta1",
      metadata: { name: "policy" },
      webhooks: [
        { name: "deny.example.com", clientConfig: {}, rules: [podsCreate] },
        {
          name: "deploy.example.com",
          clientConfig: {},
          rules: [{ ...podsCreate, apiGroups: ["apps"], resources: ["deployments"] }],
        },
      ],
    },
  ],
  externalAdmissionHookConfigurations: [
    {
      metadata: { name: "old" },
      externalAdmissionHooks: [
        {
          name: "image.policy.example.com",
          clientConfig: { service: { namespace: "hooks", name: "image" }, caBundle: "" },
          rules: [
            {
              operations: ["CREATE", "UPDATE"],
              apiGroups: [""],
              apiVersions: ["v1"],
              resources: ["pods"],
            },
          ],
        },
        {
          name: "delete-guard.example.com",
          clientConfig: { service: { namespace: "hooks", name: "guard" }, caBundle: "" },
          rules: [
            { operations: ["DELETE"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] },
          ],
          failurePolicy: "Fail",
        },
      ],
    },
  ],
  namespaces: {
    team: { "kubernetes.io/metadata.name": "team" },
    prod: { "kubernetes.io/metadata.name": "prod", env: "prod" },
  },
};

describe("v1beta1Settings (§1.2, pkg/apis/admissionregistration/v1beta1/defaults.go)", () => {
  it("shows every v1beta1 default against v1's for a hook that sets nothing", () => {
    const rows = v1beta1Settings({ rules: [podsCreate] }, true);
    expect(rows.map((r) => [r.field, r.value, r.defaulted, r.v1Default, r.differsFromV1])).toEqual([
      ["failurePolicy", "Ignore", true, "Fail", true],
      ["matchPolicy", "Exact", true, "Equivalent", true],
      ["sideEffects", "Unknown", true, "required", true],
      ["timeoutSeconds", "30", true, "10", true],
      ["admissionReviewVersions", "[v1beta1]", true, "required", true],
      ["namespaceSelector", "{}", true, "{}", false],
      ["objectSelector", "{}", true, "{}", false],
      ["rules[].scope", "*", true, "*", false],
      ["reinvocationPolicy", "Never", true, "Never", false],
    ]);
  });

  it("keeps set values, and leaves reinvocationPolicy out for validating hooks", () => {
    const rows = v1beta1Settings(
      {
        failurePolicy: "Fail",
        timeoutSeconds: 5,
        sideEffects: "None",
        admissionReviewVersions: ["v1", "v1beta1"],
        namespaceSelector: { matchLabels: { env: "prod" } },
        rules: [{ scope: "Namespaced" }],
      },
      false,
    );
    const by = Object.fromEntries(rows.map((r) => [r.field, r]));
    expect(by["failurePolicy"]).toMatchObject({
      value: "Fail",
      defaulted: false,
      differsFromV1: false,
    });
    expect(by["timeoutSeconds"]).toMatchObject({ value: "5", defaulted: false });
    expect(by["admissionReviewVersions"]).toMatchObject({
      value: "[v1, v1beta1]",
      defaulted: false,
    });
    expect(by["namespaceSelector"]?.value).toBe("env=prod");
    expect(by["rules[].scope"]).toMatchObject({ value: "Namespaced", defaulted: false });
    expect(by["matchPolicy"]).toMatchObject({ value: "Exact", defaulted: true });
    expect(by["reinvocationPolicy"]).toBeUndefined();
  });
});

describe("legacyOrder (§6.3: merged by configuration name, as today)", () => {
  const order = legacyOrder(snapshot);

  it("puts each kind in its own section, configurations by name, hooks in order", () => {
    expect(order.map((s) => s.id)).toEqual([
      "v1beta1-mutating",
      "v1beta1-validating",
      "external-admission-hooks",
    ]);
    expect(order[0]?.entries.map((e) => [e.index, e.configuration, e.name])).toEqual([
      [0, "aa-defaults", "labels.example.com"],
      [1, "aa-defaults", "prod-only.example.com"],
      [2, "zz-inject", "inject.example.com"],
    ]);
  });

  it("applies the v1beta1 defaults whatever group the objects came from", () => {
    const [labels, prodOnly] = order[0]?.entries ?? [];
    expect(labels).toMatchObject({
      failurePolicy: "Fail",
      timeoutSeconds: 5,
      reinvocationPolicy: "IfNeeded",
    });
    expect(prodOnly).toMatchObject({
      failurePolicy: "Ignore",
      matchPolicy: "Exact",
      timeoutSeconds: 30,
      sideEffects: "Unknown",
      reinvocationPolicy: "Never",
    });
  });

  it("external admission hooks default to failurePolicy Ignore and have no reinvocation", () => {
    expect(order[2]?.entries.map((e) => [e.name, e.failurePolicy, e.reinvocationPolicy])).toEqual([
      ["image.policy.example.com", "Ignore", null],
      ["delete-guard.example.com", "Fail", null],
    ]);
  });

  it("agrees with the compiled hooks the predictor uses (same order, same defaults)", () => {
    const c = compileLegacy(snapshot);
    const compiled = [c.v1beta1.mutating, c.v1beta1.validating, c.external.validating].map((hs) =>
      hs.map((h) => [
        h.id.configuration,
        h.id.name,
        h.failurePolicy,
        h.match.matchPolicy,
        h.timeoutSeconds,
        h.sideEffects,
      ]),
    );
    expect(
      order.map((s) =>
        s.entries.map((e) => [
          e.configuration,
          e.name,
          e.failurePolicy,
          e.matchPolicy,
          e.timeoutSeconds,
          e.sideEffects,
        ]),
      ),
    ).toEqual(compiled);
  });

  it("leaves out sections without hooks", () => {
    expect(legacyOrder({})).toEqual([]);
  });
});

describe("predictLegacy", () => {
  const legacy = compileLegacy(snapshot);
  const podIn = (namespace: string, operation: "CREATE" | "DELETE" = "CREATE") =>
    makeRequest({
      resource: "pods",
      operation,
      namespace,
      name: "p",
      kind: { kind: "Pod" },
      object: { metadata: { name: "p", namespace } },
    });

  it("calls the matching hooks in order and says why each other one is skipped", () => {
    const r = predictLegacy(podIn("team"), legacy);
    const m = r.find((s) => s.id === "v1beta1-mutating");
    expect(m?.calls.filter((c) => c.round === 0).map((c) => c.name)).toEqual([
      "labels.example.com",
      "inject.example.com",
    ]);
    // labels.example.com asks for reinvocation, and a later hook may mutate.
    expect(m?.calls.filter((c) => c.round === 1).map((c) => [c.name, c.certainty])).toEqual([
      ["labels.example.com", "possible"],
    ]);
    expect(m?.calls[1]).toMatchObject({
      failurePolicy: "Ignore",
      timeoutSeconds: 30,
      matchPolicy: "Exact",
    });
    expect(m?.skips.map((s) => [s.name, s.code])).toEqual([
      ["prod-only.example.com", "namespace-selector"],
    ]);
    expect(m?.skips[0]?.message).toMatch(/namespaceSelector/);

    const v = r.find((s) => s.id === "v1beta1-validating");
    expect(v?.calls.map((c) => c.name)).toEqual(["deny.example.com"]);
    expect(v?.skips.map((s) => [s.name, s.code])).toEqual([["deploy.example.com", "rules"]]);
    expect(v?.skips[0]?.message).toMatch(/no rule matches CREATE core\/v1\/pods/);

    const e = r.find((s) => s.id === "external-admission-hooks");
    expect(e?.calls.map((c) => [c.name, c.failurePolicy, c.timeoutSeconds])).toEqual([
      ["image.policy.example.com", "Ignore", null],
    ]);
    expect(e?.skips.map((s) => [s.name, s.code])).toEqual([["delete-guard.example.com", "rules"]]);
  });

  it("follows the namespace: in prod the selector matches", () => {
    const r = predictLegacy(podIn("prod"), legacy);
    expect(r[0]?.calls.filter((c) => c.round === 0).map((c) => c.name)).toContain(
      "prod-only.example.com",
    );
  });

  it("a DELETE reaches only the external delete guard", () => {
    const r = predictLegacy(podIn("team", "DELETE"), legacy);
    expect(r.flatMap((s) => s.calls.map((c) => c.name))).toEqual(["delete-guard.example.com"]);
  });

  it("says nothing when there are no historical hooks", () => {
    expect(predictLegacy(podIn("team"), compileLegacy({}))).toEqual([]);
  });
});
