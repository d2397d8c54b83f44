import { describe, expect, it } from "vitest";
import { controllerWarnings } from "./controllers";
import {
  activeRecord,
  planBreakGlass,
  planRevert,
  type BreakGlassRequest,
  type ConfigurationObject,
} from "./plan";
import { formatRecord, modesFor, parseRecord } from "./record";

function binding(over: Partial<ConfigurationObject> = {}): ConfigurationObject {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: {
      name: "no-latest-binding",
      resourceVersion: "7",
      annotations: { keep: "me" },
      managedFields: [
        {
          manager: "kubectl-client-side-apply",
          operation: "Update",
          time: "2026-11-29T10:00:00Z",
          fieldsType: "FieldsV1",
          fieldsV1: { "f:spec": { "f:policyName": {}, "f:validationActions": {} } },
        },
      ],
    },
    spec: { policyName: "no-latest", validationActions: ["Deny", "Audit"] },
    ...over,
  };
}

const req = (over: Partial<BreakGlassRequest> = {}): BreakGlassRequest => ({
  id: "b1",
  resource: "validatingadmissionpolicybindings",
  mode: "warn",
  actor: "alice",
  reason: "policy misfires",
  now: 1_000,
  durationMs: 60_000,
  ...over,
});

function planned(obj: ConfigurationObject, r: BreakGlassRequest) {
  const p = planBreakGlass(obj, r);
  if (!p.ok) throw new Error(p.message);
  return p.value;
}

/** What the apiserver stores after a write: the object as written, another resourceVersion. */
const stored = (o: ConfigurationObject, rv: string, managedFields = o.metadata?.managedFields) =>
  ({
    ...o,
    metadata: { ...o.metadata, resourceVersion: rv, ...(managedFields ? { managedFields } : {}) },
  }) as ConfigurationObject;

describe("break-glass on a binding", () => {
  it("offers Warn only on a validating binding, namespaces on both, nothing of a webhook's", () => {
    expect(modesFor("validatingadmissionpolicybindings")).toEqual(["warn", "exclude-namespaces"]);
    expect(modesFor("mutatingadmissionpolicybindings")).toEqual(["exclude-namespaces"]);
    const p = planBreakGlass(binding(), req({ mode: "ignore" }));
    expect(p).toEqual({
      ok: false,
      message: "ignore does not apply to validatingadmissionpolicybindings",
    });
    expect(
      planBreakGlass(binding(), req({ mode: "warn", resource: "mutatingadmissionpolicybindings" }))
        .ok,
    ).toBe(false);
  });

  it("warn: Deny becomes Warn and Audit, the original recorded, other annotations kept", () => {
    const { object, record } = planned(binding(), req());
    expect(object.spec?.validationActions).toEqual(["Warn", "Audit"]);
    expect(object.spec?.policyName).toBe("no-latest");
    expect(object.metadata?.annotations?.keep).toBe("me");
    expect(record.fields).toEqual([
      {
        hook: "no-latest-binding",
        field: "validationActions",
        original: ["Deny", "Audit"],
        set: ["Warn", "Audit"],
      },
    ]);
    expect(record.hooks).toEqual(["no-latest-binding"]);
    expect(activeRecord(object)).toEqual(record);
    expect(parseRecord(formatRecord(record))).toEqual(record);
  });

  it("warn is refused where nothing denies, and a second break-glass while one is active", () => {
    const p = planBreakGlass(
      binding({ spec: { policyName: "p", validationActions: ["Warn"] } }),
      req(),
    );
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.message).toMatch(/do not deny: nothing to relax/);
    const { object } = planned(binding(), req());
    const again = planBreakGlass(object, req({ id: "b2" }));
    expect(again.ok).toBe(false);
    if (!again.ok) expect(again.message).toMatch(/already active/);
  });

  it("exclude-namespaces writes matchResources whole, with the apiserver's defaults, and restores its absence", () => {
    const { object, record } = planned(
      binding(),
      req({ mode: "exclude-namespaces", namespaces: ["shop", "shop"] }),
    );
    const set = {
      namespaceSelector: {
        matchExpressions: [
          { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["shop"] },
        ],
      },
      objectSelector: {},
      matchPolicy: "Equivalent",
    };
    expect(object.spec?.matchResources).toEqual(set);
    expect(record.fields).toEqual([
      { hook: "no-latest-binding", field: "matchResources", original: null, set },
    ]);
    expect(record.namespaces).toEqual(["shop"]);
    const plan = planRevert(stored(object, "8"), record);
    expect(plan.restored).toHaveLength(1);
    expect(plan.object?.spec).toEqual({
      policyName: "no-latest",
      validationActions: ["Deny", "Audit"],
    });
    expect(plan.object?.metadata?.annotations).toEqual({ keep: "me" });
  });

  it("exclude-namespaces keeps the selector's own terms and restores them exactly", () => {
    const matchResources = {
      namespaceSelector: { matchLabels: { env: "prod" } },
      objectSelector: {},
      matchPolicy: "Exact",
      resourceRules: [
        { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] },
      ],
    };
    const obj = binding({ spec: { policyName: "p", validationActions: ["Deny"], matchResources } });
    const { object, record } = planned(obj, req({ mode: "exclude-namespaces", namespaces: ["a"] }));
    expect(object.spec?.matchResources).toEqual({
      ...matchResources,
      namespaceSelector: {
        matchLabels: { env: "prod" },
        matchExpressions: [
          { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["a"] },
        ],
      },
    });
    expect(planRevert(stored(object, "9"), record).object?.spec?.matchResources).toEqual(
      matchResources,
    );
  });

  it("revert restores the exact previous validationActions and removes only its annotation", () => {
    const { object, record } = planned(binding(), req());
    const plan = planRevert(stored(object, "8"), record);
    expect(plan.restored.map((f) => f.field)).toEqual(["validationActions"]);
    expect(plan.kept).toEqual([]);
    expect(plan.object?.spec?.validationActions).toEqual(["Deny", "Audit"]);
    expect(plan.object?.metadata?.resourceVersion).toBe("8");
    expect(activeRecord(plan.object ?? {})).toBeUndefined();
  });

  it("revert does not clobber a change made meanwhile: keeps it and names who made it", () => {
    const { object, record } = planned(binding(), req());
    const edited = stored(
      { ...object, spec: { ...object.spec, validationActions: ["Warn"] } },
      "9",
      [
        ...(object.metadata?.managedFields ?? []),
        {
          manager: "racing-editor",
          operation: "Update",
          time: "2026-11-29T10:05:00Z",
          fieldsType: "FieldsV1",
          fieldsV1: { "f:spec": { "f:validationActions": {} } },
        },
      ],
    );
    const plan = planRevert(edited, record);
    expect(plan.restored).toEqual([]);
    expect(plan.kept).toHaveLength(1);
    expect(plan.kept[0]).toMatchObject({
      hook: "no-latest-binding",
      field: "validationActions",
      now: ["Warn"],
      set: ["Warn", "Audit"],
      original: ["Deny", "Audit"],
      hookGone: false,
    });
    expect(plan.kept[0]?.changedBy.map((m) => m.manager)).toContain("racing-editor");
    // The annotation still goes; the racing value stays.
    expect(plan.object?.spec?.validationActions).toEqual(["Warn"]);
    expect(activeRecord(plan.object ?? {})).toBeUndefined();
    // Asked, the user may restore it anyway.
    const forced = planRevert(edited, record, new Set(["no-latest-binding/validationActions"]));
    expect(forced.object?.spec?.validationActions).toEqual(["Deny", "Audit"]);
  });

  it("a binding already back at its original is counted done, not changed by someone", () => {
    const { object, record } = planned(binding(), req());
    const back = stored(
      { ...object, spec: { ...object.spec, validationActions: ["Deny", "Audit"] } },
      "9",
    );
    const plan = planRevert(back, record);
    expect(plan.already).toHaveLength(1);
    expect(plan.kept).toEqual([]);
  });

  it("warns of a controller manager of validationActions, not of kubectl", () => {
    const obj = binding();
    expect(
      controllerWarnings(obj, ["no-latest-binding"], "warn", "validatingadmissionpolicybindings"),
    ).toEqual([]);
    const owned = binding({
      metadata: {
        ...obj.metadata,
        managedFields: [
          {
            manager: "policy-operator",
            operation: "Apply",
            fieldsType: "FieldsV1",
            fieldsV1: { "f:spec": { "f:validationActions": {} } },
          },
        ],
      },
    });
    const w = controllerWarnings(
      owned,
      ["no-latest-binding"],
      "warn",
      "validatingadmissionpolicybindings",
    );
    expect(w.map((x) => x.who)).toEqual(["policy-operator"]);
    expect(w[0]?.text).toMatch(/validationActions of the binding is managed by policy-operator/);
  });
});
