import { describe, expect, it } from "vitest";
import { membersOf, parsePathElement, pathString, valueAt } from "./fields-v1";
import {
  configurationProvenance,
  injectedTermsChanged,
  LAST_APPLIED,
  type ManagedObject,
} from "./provenance";

const AKS_TERMS = [
  { key: "control-plane", operator: "NotIn", values: ["true"] },
  { key: "kubernetes.azure.com/managedby", operator: "NotIn", values: ["aks"] },
];

/** A hook's fieldsV1 as the apiserver writes it for a whole hook (creator's set). */
function hookFields(extra: Record<string, unknown> = {}) {
  const all: Record<string, unknown> = {
    ".": {},
    "f:admissionReviewVersions": {},
    "f:clientConfig": { "f:url": {} },
    "f:failurePolicy": {},
    "f:matchPolicy": {},
    "f:name": {},
    "f:namespaceSelector": {},
    "f:objectSelector": {},
    "f:rules": {},
    "f:sideEffects": {},
    "f:timeoutSeconds": {},
    ...extra,
  };
  // A field given as undefined is one this manager does not own.
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined));
}

function config(over: {
  managedFields: ManagedObject["metadata"] extends infer M
    ? M extends { managedFields?: infer F }
      ? F
      : never
    : never;
  namespaceSelector?: unknown;
  annotations?: Record<string, string>;
  matchConditions?: unknown[];
}): ManagedObject {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: {
      name: "guard",
      ...(over.annotations ? { annotations: over.annotations } : {}),
      managedFields: over.managedFields,
    },
    webhooks: [
      {
        name: "a.guard.io",
        clientConfig: { url: "https://guard.example/a" },
        rules: [],
        failurePolicy: "Fail",
        matchPolicy: "Equivalent",
        namespaceSelector: over.namespaceSelector ?? {},
        objectSelector: {},
        sideEffects: "None",
        timeoutSeconds: 10,
        admissionReviewVersions: ["v1"],
        ...(over.matchConditions ? { matchConditions: over.matchConditions } : {}),
      },
    ],
  };
}

describe("fieldsV1", () => {
  it("reads every kind of path element", () => {
    expect(parsePathElement("f:spec")).toEqual({ field: "spec" });
    expect(parsePathElement('k:{"name":"a"}')).toEqual({ key: { name: "a" } });
    expect(parsePathElement('v:"Deny"')).toEqual({ value: "Deny" });
    expect(parsePathElement("i:3")).toEqual({ index: 3 });
    expect(parsePathElement("x:1")).toBeUndefined();
    expect(parsePathElement("f")).toBeUndefined();
  });

  it("lists members: leaves and nodes holding `.`, not nodes with children only", () => {
    const members = membersOf({
      "f:webhooks": { 'k:{"name":"a"}': { ".": {}, "f:name": {} } },
      "f:spec": { "f:validationActions": { 'v:"Deny"': {} } },
    }).map(pathString);
    expect(members).toEqual([
      '.webhooks[name="a"]',
      '.webhooks[name="a"].name',
      '.spec.validationActions[="Deny"]',
    ]);
  });

  it("finds a value by key, set value and index", () => {
    const obj = {
      a: [
        { name: "x", v: 1 },
        { name: "y", v: 2 },
      ],
      s: ["p", "q"],
      i: [5, 6],
    };
    expect(valueAt(obj, [{ field: "a" }, { key: { name: "y" } }, { field: "v" }])).toBe(2);
    expect(valueAt(obj, [{ field: "s" }, { value: "q" }])).toBe("q");
    expect(valueAt(obj, [{ field: "i" }, { index: 1 }])).toBe(6);
    expect(valueAt(obj, [{ field: "a" }, { key: { name: "z" } }])).toBeUndefined();
  });
});

describe("configurationProvenance", () => {
  const creator = {
    manager: "helm",
    operation: "Update",
    apiVersion: "admissionregistration.k8s.io/v1",
    time: "2026-01-01T00:00:00Z",
    fieldsType: "FieldsV1",
  };

  it("names the AKS admissions enforcer for the terms it adds to an atomic namespaceSelector", () => {
    const provenance = configurationProvenance(
      config({
        namespaceSelector: {
          matchExpressions: [{ key: "team", operator: "Exists" }, ...AKS_TERMS],
        },
        managedFields: [
          {
            ...creator,
            fieldsV1: {
              "f:webhooks": {
                'k:{"name":"a.guard.io"}': hookFields({ "f:namespaceSelector": undefined }),
              },
            },
          },
          {
            manager: "admissionsenforcer",
            operation: "Update",
            time: "2026-01-01T00:05:00Z",
            fieldsType: "FieldsV1",
            fieldsV1: {
              "f:webhooks": { 'k:{"name":"a.guard.io"}': { "f:namespaceSelector": {} } },
            },
          },
        ],
      }),
    );
    expect(provenance.creator?.manager.manager).toBe("helm");
    expect(provenance.platforms.map((p) => p.name)).toEqual(["AKS admissions enforcer"]);
    const terms = provenance.sections[0]!.terms.filter((t) => t.field === "namespaceSelector");
    expect(
      terms.map((t) => [t.text, t.granularity, t.owners.map((o) => o.manager), t.injected?.by]),
    ).toEqual([
      ["team Exists", "atomic", ["admissionsenforcer"], "admissionsenforcer"],
      [
        "control-plane NotIn [true]",
        "atomic-signature",
        ["admissionsenforcer"],
        "admissionsenforcer",
      ],
      [
        "kubernetes.azure.com/managedby NotIn [aks]",
        "atomic-signature",
        ["admissionsenforcer"],
        "admissionsenforcer",
      ],
    ]);
    expect(terms[1]!.injected?.platform?.optOut).toContain("admissions.enforcer/disabled");
    expect(terms[1]!.ownedPath).toBe('.webhooks[name="a.guard.io"].namespaceSelector');
  });

  it("tells the creator's terms from injected ones by the last applied configuration", () => {
    const declared = {
      webhooks: [
        {
          name: "a.guard.io",
          namespaceSelector: { matchExpressions: [{ key: "team", operator: "Exists" }] },
        },
      ],
    };
    const provenance = configurationProvenance(
      config({
        annotations: { [LAST_APPLIED]: JSON.stringify(declared) },
        namespaceSelector: {
          matchExpressions: [
            { key: "team", operator: "Exists" },
            { key: "tier", operator: "NotIn", values: ["system"] },
          ],
        },
        managedFields: [
          {
            ...creator,
            manager: "kubectl-client-side-apply",
            fieldsV1: {
              "f:metadata": { "f:annotations": { ".": {}, [`f:${LAST_APPLIED}`]: {} } },
              "f:webhooks": {
                'k:{"name":"a.guard.io"}': hookFields({ "f:namespaceSelector": undefined }),
              },
            },
          },
          {
            manager: "tier-guard",
            operation: "Update",
            time: "2026-01-01T00:05:00Z",
            fieldsType: "FieldsV1",
            fieldsV1: {
              "f:webhooks": { 'k:{"name":"a.guard.io"}': { "f:namespaceSelector": {} } },
            },
          },
        ],
      }),
    );
    expect(provenance.declaredBy).toBe("kubectl-client-side-apply");
    const terms = provenance.sections[0]!.terms.filter((t) => t.field === "namespaceSelector");
    expect(terms.map((t) => [t.text, t.granularity, t.owners[0]?.manager, t.injected?.by])).toEqual(
      [
        ["team Exists", "atomic-intent", "kubectl-client-side-apply", undefined],
        ["tier NotIn [system]", "atomic-intent", "tier-guard", "tier-guard"],
      ],
    );
  });

  it("owns matchConditions one by one and fields one by one", () => {
    const provenance = configurationProvenance(
      config({
        matchConditions: [
          { name: "not-leases", expression: "request.resource.resource != 'leases'" },
          { name: "platform", expression: "true" },
        ],
        managedFields: [
          {
            ...creator,
            operation: "Apply",
            manager: "owner",
            fieldsV1: {
              "f:webhooks": {
                'k:{"name":"a.guard.io"}': hookFields({
                  "f:matchConditions": {
                    'k:{"name":"not-leases"}': { ".": {}, "f:expression": {}, "f:name": {} },
                  },
                }),
              },
            },
          },
          {
            manager: "cert-manager-cainjector",
            operation: "Apply",
            time: "2026-01-01T00:01:00Z",
            fieldsType: "FieldsV1",
            fieldsV1: {
              "f:webhooks": {
                'k:{"name":"a.guard.io"}': {
                  "f:clientConfig": { "f:caBundle": {} },
                  "f:matchConditions": {
                    'k:{"name":"platform"}': { ".": {}, "f:expression": {}, "f:name": {} },
                  },
                  "f:name": {},
                },
              },
            },
          },
        ],
      }),
    );
    expect(provenance.creator?.manager.manager).toBe("owner");
    const byField = Object.fromEntries(provenance.sections[0]!.terms.map((t) => [t.field, t]));
    expect(byField['matchConditions[name="not-leases"]']?.injected).toBeUndefined();
    expect(byField['matchConditions[name="platform"]']?.injected?.by).toBe(
      "cert-manager-cainjector",
    );
    expect(byField['matchConditions[name="platform"]']?.granularity).toBe("item");
    expect(byField["clientConfig.caBundle"]?.injected?.platform?.name).toBe(
      "cert-manager CA injector",
    );
    expect(byField["failurePolicy"]?.owners.map((o) => o.manager)).toEqual(["owner"]);
    // The hook's key is not a term of its own.
    expect(byField["name"]).toBeUndefined();
  });

  it("warns of an edit that changes or drops an injected term, not of others", () => {
    const obj = config({
      namespaceSelector: { matchExpressions: [...AKS_TERMS] },
      managedFields: [
        {
          ...creator,
          fieldsV1: { "f:webhooks": { 'k:{"name":"a.guard.io"}': hookFields() } },
        },
        {
          manager: "admissionsenforcer",
          operation: "Update",
          time: "2026-01-01T00:05:00Z",
          fieldsType: "FieldsV1",
          fieldsV1: { "f:webhooks": { 'k:{"name":"a.guard.io"}': { "f:namespaceSelector": {} } } },
        },
      ],
    });
    const provenance = configurationProvenance(obj);
    const edited = structuredClone(obj) as { webhooks: Array<Record<string, unknown>> };
    edited.webhooks[0]!["timeoutSeconds"] = 5;
    // The same requirements with their keys in another order (as YAML may give them): unchanged.
    edited.webhooks[0]!["namespaceSelector"] = {
      matchExpressions: AKS_TERMS.map((t) => ({
        values: t.values,
        operator: t.operator,
        key: t.key,
      })),
    };
    expect(injectedTermsChanged(provenance, edited)).toEqual([]);
    edited.webhooks[0]!["namespaceSelector"] = { matchExpressions: [AKS_TERMS[1]] };
    expect(injectedTermsChanged(provenance, edited).map((c) => c.term.text)).toEqual([
      "control-plane NotIn [true]",
    ]);
  });

  it("reads a policy's spec: matchConstraints atomic, validationActions a set", () => {
    const provenance = configurationProvenance({
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: {
        name: "b",
        managedFields: [
          {
            manager: "owner",
            operation: "Apply",
            fieldsType: "FieldsV1",
            fieldsV1: {
              "f:spec": {
                "f:matchResources": {},
                "f:policyName": {},
                "f:validationActions": { 'v:"Deny"': {} },
              },
            },
          },
          {
            manager: "auditor",
            operation: "Apply",
            fieldsType: "FieldsV1",
            fieldsV1: { "f:spec": { "f:validationActions": { 'v:"Audit"': {} } } },
          },
        ],
      },
      spec: {
        policyName: "p",
        validationActions: ["Deny", "Audit"],
        matchResources: { namespaceSelector: { matchLabels: { env: "prod" } } },
      },
    });
    const terms = provenance.sections[0]!.terms;
    expect(provenance.creator?.manager.manager).toBe("owner");
    expect(terms.map((t) => [t.field, t.text, t.injected?.by])).toEqual([
      ["matchResources", '{"namespaceSelector":{"matchLabels":{"env":"prod"}}}', undefined],
      ["policyName", "p", undefined],
      ['validationActions[="Deny"]', "Deny", undefined],
      ['validationActions[="Audit"]', "Audit", "auditor"],
      ["matchResources.namespaceSelector", "env=prod", undefined],
    ]);
    expect(terms[4]!.ownedPath).toBe(".spec.matchResources");
  });
});
