import { describe, expect, it } from "vitest";
import { controllerWarnings } from "./controllers";
import {
  activeRecord,
  breakglassCheckOf,
  grantObjects,
  planBreakGlass,
  planRevert,
  type BreakGlassRequest,
  type ConfigurationObject,
} from "./plan";
import { BREAK_GLASS_ANNOTATION, formatRecord, parseRecord } from "./record";

const CHECK =
  "!authorizer.group('admissionregistration.k8s.io').resource('validatingwebhookconfigurations').name('my-webhook.example.com').check('breakglass').allowed()";

function hookFields(): Record<string, unknown> {
  return { ".": {}, "f:name": {}, "f:failurePolicy": {}, "f:namespaceSelector": {}, "f:rules": {} };
}

function config(over: Partial<ConfigurationObject> = {}): ConfigurationObject {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: {
      name: "guard",
      resourceVersion: "10",
      annotations: { keep: "me" },
      managedFields: [
        {
          manager: "kubectl-client-side-apply",
          operation: "Update",
          time: "2026-11-29T10:00:00Z",
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:webhooks": {
              'k:{"name":"a.guard.io"}': hookFields(),
              'k:{"name":"b.guard.io"}': hookFields(),
            },
          },
        },
      ],
    },
    webhooks: [
      {
        name: "a.guard.io",
        failurePolicy: "Fail",
        namespaceSelector: {
          matchExpressions: [{ key: "team", operator: "In", values: ["x"] }],
        },
        matchConditions: [{ name: "breakglass", expression: CHECK }],
      },
      { name: "b.guard.io", failurePolicy: "Ignore", namespaceSelector: {} },
    ],
    ...over,
  };
}

const req = (over: Partial<BreakGlassRequest> = {}): BreakGlassRequest => ({
  id: "e1",
  resource: "validatingwebhookconfigurations",
  mode: "ignore",
  actor: "alice",
  reason: "backend down",
  now: 1_000,
  durationMs: 60_000,
  ...over,
});

function planned(obj: ConfigurationObject, r: BreakGlassRequest) {
  const p = planBreakGlass(obj, r);
  if (!p.ok) throw new Error(p.message);
  return p.value;
}

const hook = (o: ConfigurationObject, name: string) =>
  (o.webhooks ?? []).find((h) => h.name === name) as Record<string, unknown>;

describe("planBreakGlass", () => {
  it("sets failurePolicy Ignore on the hooks that fail closed and records the originals", () => {
    const { object, record } = planned(config(), req());
    expect(hook(object, "a.guard.io").failurePolicy).toBe("Ignore");
    expect(record.fields).toEqual([
      { hook: "a.guard.io", field: "failurePolicy", original: "Fail", set: "Ignore" },
    ]);
    expect(record.expiresAt).toBe(61_000);
    expect(object.metadata?.annotations?.keep).toBe("me");
    expect(activeRecord(object)).toEqual(record);
    expect(object.metadata?.resourceVersion).toBe("10");
  });

  it("adds a NotIn term on the namespace name label and keeps the selector's terms", () => {
    const { object, record } = planned(
      config(),
      req({ mode: "exclude-namespaces", hook: "a.guard.io", namespaces: ["shop", "shop"] }),
    );
    expect(hook(object, "a.guard.io").namespaceSelector).toEqual({
      matchExpressions: [
        { key: "team", operator: "In", values: ["x"] },
        { key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["shop"] },
      ],
    });
    expect(hook(object, "b.guard.io").namespaceSelector).toEqual({});
    expect(record.namespaces).toEqual(["shop"]);
  });

  it("grants the breakglass verb for a hook that declares the documented condition", () => {
    const { object, record } = planned(config(), req({ mode: "grant", group: "oncall" }));
    expect(record.fields).toEqual([]);
    expect(record.grant).toEqual({
      group: "oncall",
      name: "portcullis-break-glass-e1",
      apiGroup: "admissionregistration.k8s.io",
      resource: "validatingwebhookconfigurations",
      resourceName: "my-webhook.example.com",
    });
    expect(object.webhooks).toEqual(config().webhooks);
    const { role, binding } = grantObjects(record.grant!, { l: "v" });
    expect(role.rules[0]).toEqual({
      apiGroups: ["admissionregistration.k8s.io"],
      resources: ["validatingwebhookconfigurations"],
      resourceNames: ["my-webhook.example.com"],
      verbs: ["breakglass"],
    });
    expect(binding.subjects).toEqual([
      { apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "oncall" },
    ]);
  });

  it("refuses what cannot be done", () => {
    const fails = (o: ConfigurationObject, r: BreakGlassRequest) => {
      const p = planBreakGlass(o, r);
      return p.ok ? "" : p.message;
    };
    expect(fails(config(), req({ hook: "b.guard.io" }))).toMatch(
      /already has failurePolicy Ignore/,
    );
    expect(fails(config(), req({ hook: "nope" }))).toMatch(/no hook named nope/);
    expect(fails(config(), req({ reason: " " }))).toMatch(/reason/);
    expect(fails(config(), req({ mode: "grant", hook: "b.guard.io", group: "g" }))).toMatch(
      /breakglass authorization matchCondition/,
    );
    expect(fails(config(), req({ mode: "exclude-namespaces", namespaces: ["Bad_Name"] }))).toMatch(
      /not a namespace name/,
    );
    const { object } = planned(config(), req());
    expect(fails(object, req({ id: "e2" }))).toMatch(/already active/);
  });

  it("reads the condition with double quotes and without a name", () => {
    expect(
      breakglassCheckOf({
        matchConditions: [
          {
            name: "bg",
            expression: `!authorizer.group("g").resource("r").check("breakglass").allowed()`,
          },
        ],
      }),
    ).toEqual({ condition: "bg", apiGroup: "g", resource: "r" });
    expect(breakglassCheckOf({ matchConditions: [{ expression: "true" }] })).toBeUndefined();
  });
});

describe("the annotation", () => {
  it("round-trips and refuses what this version did not write", () => {
    const { record } = planned(config(), req({ mode: "exclude-namespaces", namespaces: ["a"] }));
    expect(parseRecord(formatRecord(record))).toEqual(record);
    expect(parseRecord("{")).toBeUndefined();
    expect(parseRecord(JSON.stringify({ ...record, v: 2 }))).toBeUndefined();
    expect(parseRecord(JSON.stringify({ ...record, mode: "grant" }))).toBeUndefined();
  });
});

describe("planRevert", () => {
  it("restores the fields still as break-glass left them and removes the annotation", () => {
    const { object, record } = planned(config(), req());
    const plan = planRevert(object, record);
    expect(plan.kept).toEqual([]);
    expect(plan.restored).toHaveLength(1);
    expect(hook(plan.object!, "a.guard.io").failurePolicy).toBe("Fail");
    expect(plan.object?.metadata?.annotations).toEqual({ keep: "me" });
  });

  it("keeps a field someone changed, naming its manager, and restores the rest", () => {
    const { object, record } = planned(
      config(),
      req({ mode: "exclude-namespaces", namespaces: ["shop"] }),
    );
    const edited: ConfigurationObject = {
      ...object,
      metadata: {
        ...object.metadata,
        managedFields: [
          ...(object.metadata?.managedFields ?? []),
          {
            manager: "bob-tool",
            operation: "Update",
            time: "2026-11-29T11:00:00Z",
            fieldsType: "FieldsV1",
            fieldsV1: {
              "f:webhooks": { 'k:{"name":"b.guard.io"}': { "f:namespaceSelector": {} } },
            },
          },
        ],
      },
      webhooks: (object.webhooks ?? []).map((h) =>
        h.name === "b.guard.io" ? { ...h, namespaceSelector: { matchLabels: { bob: "yes" } } } : h,
      ),
    };
    const plan = planRevert(edited, record);
    expect(plan.restored.map((f) => f.hook)).toEqual(["a.guard.io"]);
    expect(hook(plan.object!, "a.guard.io").namespaceSelector).toEqual(
      config().webhooks![0]!.namespaceSelector,
    );
    expect(hook(plan.object!, "b.guard.io").namespaceSelector).toEqual({
      matchLabels: { bob: "yes" },
    });
    expect(plan.kept).toHaveLength(1);
    expect(plan.kept[0]).toMatchObject({
      hook: "b.guard.io",
      field: "namespaceSelector",
      now: { matchLabels: { bob: "yes" } },
      hookGone: false,
    });
    expect(plan.kept[0]!.changedBy.map((m) => m.manager)).toContain("bob-tool");
    expect(plan.kept[0]!.changedBy[0]).toMatchObject({
      manager: "bob-tool",
      time: "2026-11-29T11:00:00Z",
    });
    expect(plan.object?.metadata?.annotations?.[BREAK_GLASS_ANNOTATION]).toBeUndefined();

    const forced = planRevert(edited, record, new Set(["b.guard.io/namespaceSelector"]));
    expect(forced.kept).toEqual([]);
    expect(hook(forced.object!, "b.guard.io").namespaceSelector).toEqual({});
  });

  it("reports a hook that is gone, and writes nothing when nothing is left to do", () => {
    const { object, record } = planned(config(), req());
    const gone = { ...object, webhooks: [] };
    const plan = planRevert(gone, record);
    expect(plan.kept[0]).toMatchObject({ hookGone: true, now: null });
    expect(plan.object?.metadata?.annotations?.[BREAK_GLASS_ANNOTATION]).toBeUndefined();
    expect(planRevert(plan.object!, record).object).toBeUndefined();
  });

  it("counts a field already back at its original as done, not as changed by someone", () => {
    const { object, record } = planned(config(), req());
    const first = planRevert(object, record).object!;
    const again = planRevert(first, record);
    expect(again).toMatchObject({ restored: [], kept: [] });
    expect(again.object).toBeUndefined();
    expect(again.already).toHaveLength(1);
  });
});

describe("controllerWarnings", () => {
  it("names a controller manager of the fields and a controlling owner, not kubectl", () => {
    const base = config();
    expect(controllerWarnings(base, ["a.guard.io"], "ignore")).toEqual([]);
    const owned: ConfigurationObject = {
      ...base,
      metadata: {
        ...base.metadata,
        ownerReferences: [{ kind: "Deployment", name: "op", controller: true }],
        managedFields: [
          {
            manager: "my-operator",
            operation: "Update",
            time: "2026-11-29T09:00:00Z",
            fieldsType: "FieldsV1",
            fieldsV1: {
              "f:webhooks": { 'k:{"name":"a.guard.io"}': hookFields() },
            },
          },
        ],
      },
    };
    const w = controllerWarnings(owned, ["a.guard.io"], "ignore");
    expect(w.map((x) => x.who)).toEqual(["Deployment/op", "my-operator"]);
    expect(w[1]?.text).toMatch(/failurePolicy of hook a\.guard\.io is managed by my-operator/);
    expect(controllerWarnings(owned, ["a.guard.io"], "grant").map((x) => x.who)).toEqual([
      "Deployment/op",
    ]);
  });
});
