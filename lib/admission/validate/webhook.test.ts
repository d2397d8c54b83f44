import { describe, expect, it } from "vitest";
import type { JsonObject } from "./json";
import { kindInfoFor } from "./kind-info";
import { formatStatusMessage, validateObject } from "./validate-object";

const VWC = kindInfoFor("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration")!;
const MWC = kindInfoFor("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration")!;

function hook(over: JsonObject = {}): JsonObject {
  return {
    name: "hook.example.com",
    clientConfig: { url: "https://127.0.0.1:9443/x" },
    rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    ...over,
  };
}
const cfg = (hooks: JsonObject[], name = "cfg"): JsonObject => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingWebhookConfiguration",
  metadata: { name },
  webhooks: hooks,
});
const errs = (o: JsonObject, old?: JsonObject, kind = VWC) =>
  validateObject(kind, o, old)
    .issues.filter((i) => i.severity === "error")
    .map((i) => `${i.field}: ${i.message}`);

describe("validateValidatingWebhook (create)", () => {
  const cases: [string, JsonObject[], string[]][] = [
    ["valid webhook", [hook()], []],
    [
      "IsFullyQualifiedName: empty name",
      [hook({ name: "" })],
      ["webhooks[0].name: Required value"],
    ],
    [
      "IsFullyQualifiedName: fewer than three segments",
      [hook({ name: "a.b" })],
      [
        'webhooks[0].name: Invalid value: "a.b": should be a domain with at least three segments separated by dots',
      ],
    ],
    [
      "validateValidatingWebhookConfiguration: duplicate names",
      [hook(), hook()],
      ['webhooks[1].name: Duplicate value: "hook.example.com"'],
    ],
    [
      "failurePolicy unsupported",
      [hook({ failurePolicy: "fail" })],
      ['webhooks[0].failurePolicy: Unsupported value: "fail": supported values: "Fail", "Ignore"'],
    ],
    [
      "matchPolicy unsupported",
      [hook({ matchPolicy: "" })],
      ['webhooks[0].matchPolicy: Unsupported value: "": supported values: "Equivalent", "Exact"'],
    ],
    [
      "sideEffects required (no v1 default)",
      [hook({ sideEffects: null })],
      ["webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"],
    ],
    [
      "sideEffects Some rejected on create",
      [hook({ sideEffects: "Some" })],
      [
        'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      ],
    ],
    [
      "timeoutSeconds out of range",
      [hook({ timeoutSeconds: 31 })],
      [
        "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds",
      ],
    ],
    [
      "validateAdmissionReviewVersions: required",
      [hook({ admissionReviewVersions: [] })],
      ["webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1"],
    ],
    [
      "validateAdmissionReviewVersions: duplicate version",
      [hook({ admissionReviewVersions: ["v1", "v1"] })],
      ['webhooks[0].admissionReviewVersions[1]: Invalid value: "v1": duplicate version'],
    ],
    [
      "validateAdmissionReviewVersions: none accepted",
      [hook({ admissionReviewVersions: ["v2"] })],
      [
        'webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1',
      ],
    ],
    [
      "validateAdmissionReviewVersions: unknown next to known is fine",
      [hook({ admissionReviewVersions: ["v2", "v1"] })],
      [],
    ],
    [
      "matchConditions: too many",
      [
        hook({
          matchConditions: Array.from({ length: 65 }, (_, i) => ({
            name: `c${i}`,
            expression: "true",
          })),
        }),
      ],
      ["webhooks[0].matchConditions: Too many: 65: must have at most 64 items"],
    ],
    [
      "matchConditions: duplicate name and blank expression",
      [
        hook({
          matchConditions: [
            { name: "a", expression: "true" },
            { name: "a", expression: " " },
          ],
        }),
      ],
      [
        "webhooks[0].matchConditions[1].expression: Required value",
        'webhooks[0].matchConditions[1].name: Duplicate value: "a"',
      ],
    ],
    [
      "matchConditions: params are not declared for webhooks",
      [hook({ matchConditions: [{ name: "a", expression: "params.x == 1" }] })],
      [
        "webhooks[0].matchConditions[0].expression: Invalid value: \"params.x == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1\n | ^",
      ],
    ],
  ];
  for (const [name, hooks, want] of cases) it(name, () => expect(errs(cfg(hooks))).toEqual(want));

  it("validateMutatingWebhook: reinvocationPolicy unsupported", () => {
    const o = {
      ...cfg([hook({ reinvocationPolicy: "Always" })]),
      kind: "MutatingWebhookConfiguration",
    };
    expect(errs(o, undefined, MWC)).toEqual([
      'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
    ]);
  });

  it("ValidateStaticSuffix: reserved name is rejected on create and only warned on update", () => {
    const o = cfg([hook()], "x.static.k8s.io");
    expect(errs(o)).toEqual([
      'metadata.name: Invalid value: "x.static.k8s.io": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API',
    ]);
    const upd = validateObject(VWC, o, o).issues;
    expect(upd.filter((i) => i.severity === "error")).toEqual([]);
    expect(upd.filter((i) => i.severity === "warning").map((i) => i.field)).toEqual([
      "metadata.name",
    ]);
  });

  it("WarningsForValidatingWebhookRules: explicit excluded resource warns", () => {
    const o = cfg([
      hook({
        rules: [
          {
            operations: ["CREATE"],
            apiGroups: ["authentication.k8s.io"],
            apiVersions: ["v1"],
            resources: ["tokenreviews"],
          },
        ],
      }),
    ]);
    const w = validateObject(VWC, o).issues.filter((i) => i.severity === "warning");
    expect(w.map((i) => `${i.field}: ${i.message}`)).toEqual([
      "webhooks[0].rules[0]: tokenreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect",
    ]);
  });
});

describe("ValidateValidatingWebhookConfigurationUpdate (ratcheting)", () => {
  const cases: [string, JsonObject, JsonObject, string[]][] = [
    [
      "validatingHasNoSideEffects: old Unknown allows Some everywhere",
      cfg([hook({ sideEffects: "Some" }), hook({ name: "b.example.com", sideEffects: "Unknown" })]),
      cfg([hook({ sideEffects: "Unknown" })]),
      [],
    ],
    [
      "validatingHasNoSideEffects: old all None keeps the strict rule",
      cfg([hook({ sideEffects: "Some" })]),
      cfg([hook()]),
      [
        'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      ],
    ],
    [
      "validatingHasAcceptedAdmissionReviewVersions: old unrecognized allows unrecognized",
      cfg([hook({ admissionReviewVersions: ["v2"] })]),
      cfg([hook({ admissionReviewVersions: ["v0"] })]),
      [],
    ],
    [
      "validatingHasUniqueWebhookNames: old duplicates allow duplicates",
      cfg([hook(), hook()]),
      cfg([hook(), hook()]),
      [],
    ],
    [
      "validatingWebhookHasInvalidLabelValueInSelector: old invalid value allows invalid values",
      cfg([
        hook({
          objectSelector: { matchExpressions: [{ key: "a", operator: "In", values: ["x y"] }] },
        }),
      ]),
      cfg([
        hook({
          namespaceSelector: { matchExpressions: [{ key: "a", operator: "In", values: ["b c"] }] },
        }),
      ]),
      [],
    ],
    [
      "ignoreValidatingWebhookMatchConditions: unchanged conditions are not recompiled",
      cfg([hook({ matchConditions: [{ name: "a", expression: "foo" }] })]),
      cfg([hook({ matchConditions: [{ name: "a", expression: "foo" }] })]),
      [],
    ],
  ];
  for (const [name, n, o, want] of cases) it(name, () => expect(errs(n, o)).toEqual(want));

  it("ignoreValidatingWebhookMatchConditions: a changed webhook count revalidates them", () => {
    const old = cfg([hook({ matchConditions: [{ name: "a", expression: "foo" }] })]);
    const neu = cfg([
      hook({ matchConditions: [{ name: "a", expression: "foo" }] }),
      hook({ name: "b.example.com" }),
    ]);
    expect(errs(neu, old)).toHaveLength(1);
  });
});

describe("formatStatusMessage", () => {
  it("NewInvalid: single error printed bare, several in brackets, duplicates once", () => {
    const mk = (field: string, message: string) => ({
      field,
      message,
      type: "FieldValueRequired" as const,
      severity: "error" as const,
      source: "admission" as const,
    });
    expect(
      formatStatusMessage("ValidatingWebhookConfiguration", "x", [mk("a", "Required value")]),
    ).toBe(
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "x" is invalid: a: Required value',
    );
    expect(
      formatStatusMessage("ValidatingWebhookConfiguration", "x", [
        mk("a", "Required value"),
        mk("a", "Required value"),
        mk("b", "Required value"),
      ]),
    ).toBe(
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "x" is invalid: [a: Required value, b: Required value]',
    );
  });

  it("validateObject statusMessage matches the live apiserver's 422 text", () => {
    const v = validateObject(VWC, cfg([hook({ clientConfig: { service: { namespace: "n" } } })]));
    expect(v.statusMessage).toBe(
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "cfg" is invalid: webhooks[0].clientConfig.service.namespace: Required value',
    );
  });
});
