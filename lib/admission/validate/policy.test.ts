import { describe, expect, it } from "vitest";
import type { JsonObject } from "./json";
import { kindInfoFor } from "./kind-info";
import { validateObject } from "./validate-object";

const G = "admissionregistration.k8s.io";
const rule = { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] };
const fields = (
  apiVersion: string,
  kind: string,
  spec: JsonObject,
  old?: JsonObject,
  name = "p",
) => {
  const o = { apiVersion, kind, metadata: { name }, spec };
  return validateObject(kindInfoFor(apiVersion, kind)!, o, old && { ...o, spec: old })
    .issues.filter((i) => i.severity === "error")
    .map((i) => `${i.field}: ${i.message.split("\n")[0]}`);
};
const vap = (spec: JsonObject, old?: JsonObject) =>
  fields(`${G}/v1`, "ValidatingAdmissionPolicy", spec, old);
const ok = (): JsonObject => ({
  matchConstraints: { resourceRules: [rule] },
  validations: [{ expression: "true" }],
});

describe("validateValidatingAdmissionPolicySpec", () => {
  const cases: [string, JsonObject, string[]][] = [
    ["valid", ok(), []],
    [
      "matchConstraints required",
      { validations: [{ expression: "true" }] },
      ["spec.matchConstraints: Required value"],
    ],
    [
      "resourceRules required",
      { ...ok(), matchConstraints: {} },
      ["spec.matchConstraints.resourceRules: Required value"],
    ],
    [
      "validations or auditAnnotations required",
      { ...ok(), validations: [] },
      [
        "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
        "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item",
      ],
    ],
    [
      "validateParamKind: version must be specified",
      { ...ok(), paramKind: { apiVersion: "apps/", kind: "X" } },
      ['spec.paramKind.apiVersion: Invalid value: "apps/": version must be specified'],
    ],
    [
      "validateValidation: message with line break",
      { ...ok(), validations: [{ expression: "true", message: "a\nb" }] },
      ['spec.validations[0].message: Invalid value: "a\\nb": must not contain line breaks'],
    ],
    [
      "validateValidation: reason unsupported",
      { ...ok(), validations: [{ expression: "true", reason: "Bogus" }] },
      [
        'spec.validations[0].reason: Unsupported value: "Bogus": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
      ],
    ],
    [
      "validateVariable: not a CEL identifier",
      { ...ok(), variables: [{ name: "if", expression: "1" }] },
      ['spec.variables[0].name: Invalid value: "if": must be a valid CEL identifier'],
    ],
    [
      "validateAuditAnnotation: duplicate key",
      {
        ...ok(),
        validations: [],
        auditAnnotations: [
          { key: "k", valueExpression: "'v'" },
          { key: "k", valueExpression: "'w'" },
        ],
      },
      ['spec.auditAnnotations[1].key: Duplicate value: "k"'],
    ],
    [
      "validateNamedRuleWithOperations: resourceName may not contain '/'",
      { ...ok(), matchConstraints: { resourceRules: [{ ...rule, resourceNames: ["a/b"] }] } },
      [
        "spec.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: \"a/b\": may not contain '/'",
      ],
    ],
    [
      "a two-variable comprehension over object.data (ext.TwoVarComprehensions)",
      { ...ok(), validations: [{ expression: "object.data.all(k, v, v.size() < 100)" }] },
      [],
    ],
    [
      "matchConditions may use params when paramKind is set",
      {
        ...ok(),
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        matchConditions: [{ name: "a", expression: "params.x == 'y'" }],
      },
      [],
    ],
  ];
  for (const [name, spec, want] of cases) it(name, () => expect(vap(spec)).toEqual(want));

  // The composition compiler declares variables one after another, each with its expression's
  // type (messages as kube-apiserver 1.37.2 gave them).
  const withVars = (variables: JsonObject[], validations: JsonObject[]): JsonObject => ({
    ...ok(),
    variables,
    validations,
  });
  const variableCases: [string, JsonObject, string[]][] = [
    [
      "a variable does not see itself or later ones",
      withVars(
        [
          { name: "a", expression: "variables.b" },
          { name: "b", expression: "1" },
        ],
        [{ expression: "variables.b == 1" }],
      ),
      [
        "spec.variables[0].expression: Invalid value: \"variables.b\": compilation failed: ERROR: <input>:1:10: undefined field 'b'",
      ],
    ],
    [
      "a variable with a blank expression is never declared",
      withVars([{ name: "x", expression: " " }], [{ expression: "variables.x == 1" }]),
      [
        "spec.variables[0].expression: Required value: expression is not specified",
        "spec.validations[0].expression: Invalid value: \"variables.x == 1\": compilation failed: ERROR: <input>:1:10: undefined field 'x'",
      ],
    ],
    [
      "a variable has its expression's type: int compared to string",
      withVars([{ name: "x", expression: "1" }], [{ expression: "variables.x == 'a'" }]),
      [
        "spec.validations[0].expression: Invalid value: \"variables.x == 'a'\": compilation failed: ERROR: <input>:1:13: found no matching overload for '_==_' applied to '(int, string)'",
      ],
    ],
    [
      "a bool variable is a validation",
      withVars([{ name: "x", expression: "true" }], [{ expression: "variables.x" }]),
      [],
    ],
    [
      "a string variable is a messageExpression",
      withVars(
        [{ name: "x", expression: "'m'" }],
        [{ expression: "true", messageExpression: "variables.x" }],
      ),
      [],
    ],
    [
      "the later of two variables of one name wins",
      withVars(
        [
          { name: "x", expression: "1" },
          { name: "x", expression: "'s'" },
        ],
        [{ expression: "variables.x == 's'" }],
      ),
      [],
    ],
    [
      "a variable whose type cel-go may know better (a typed object) is left undecided",
      withVars(
        [{ name: "x", expression: "namespaceObject.metadata.name" }],
        [{ expression: "true", messageExpression: "variables.x" }],
      ),
      [],
    ],
  ];
  for (const [name, spec, want] of variableCases) it(name, () => expect(vap(spec)).toEqual(want));

  it("more than 20 auditAnnotations: the value is printed with Go's field names", () => {
    const auditAnnotations = Array.from({ length: 21 }, (_, i) => ({
      key: `k${i}`,
      valueExpression: "'v'",
    }));
    const [first] = vap({ ...ok(), validations: [], auditAnnotations });
    expect(first).toMatch(
      /^spec\.auditAnnotations: Invalid value: \[\{"Key":"k0","ValueExpression":"'v'"\},/,
    );
  });

  it("ignoreValidatingAdmissionPolicyMatchConditions: unchanged matchConditions are not revalidated", () => {
    const spec = { ...ok(), matchConditions: [{ name: "a", expression: "foo" }] };
    expect(vap(spec)).toHaveLength(1);
    expect(vap(spec, spec)).toEqual([]);
  });
});

describe("bindings", () => {
  const b = (spec: JsonObject) => fields(`${G}/v1`, "ValidatingAdmissionPolicyBinding", spec);
  it("declarative validation (1.37.2): empty spec gives policyName and validationActions Required", () => {
    expect(b({})).toEqual([
      "spec.policyName: Required value",
      "spec.validationActions: Required value",
    ]);
  });
  it("validateValidationActions: Deny with Warn", () => {
    expect(b({ policyName: "p", validationActions: ["Deny", "Warn"] })).toEqual([
      'spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    ]);
  });
  it("validateParamRef: name and selector are mutually exclusive; action required in v1", () => {
    expect(
      b({ policyName: "p", validationActions: ["Deny"], paramRef: { name: "x", selector: {} } }),
    ).toEqual([
      "spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
      "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive",
      "spec.paramRef.parameterNotFoundAction: Required value",
    ]);
  });
  it("v1alpha1 MutatingAdmissionPolicyBinding defaults parameterNotFoundAction to Deny", () => {
    expect(
      fields(`${G}/v1alpha1`, "MutatingAdmissionPolicyBinding", {
        policyName: "p",
        paramRef: { name: "x" },
      }),
    ).toEqual([]);
    expect(
      fields(`${G}/v1`, "MutatingAdmissionPolicyBinding", {
        policyName: "p",
        paramRef: { name: "x" },
      }),
    ).toEqual(["spec.paramRef.parameterNotFoundAction: Required value"]);
  });
});

describe("validateMutatingAdmissionPolicySpec", () => {
  const map = (spec: JsonObject) => fields(`${G}/v1`, "MutatingAdmissionPolicy", spec);
  const okM = (): JsonObject => ({
    matchConstraints: { resourceRules: [rule] },
    reinvocationPolicy: "Never",
    mutations: [
      { patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{}" } },
    ],
  });
  it("valid", () => expect(map(okM())).toEqual([]));
  it("supportedMutatingOperations: DELETE is refused", () => {
    expect(
      map({ ...okM(), matchConstraints: { resourceRules: [{ ...rule, operations: ["DELETE"] }] } }),
    ).toEqual([
      'spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"',
    ]);
  });
  it("reinvocationPolicy is required (no default)", () => {
    const s = okM();
    delete s.reinvocationPolicy;
    expect(map(s)).toEqual(["spec.reinvocationPolicy: Required value"]);
  });
  it("validateMutation: JSONPatch expression `[]` is list(dyn)", () => {
    expect(
      map({ ...okM(), mutations: [{ patchType: "JSONPatch", jsonPatch: { expression: "[]" } }] }),
    ).toEqual([
      'spec.mutations[0].jsonPatch.expression: Invalid value: "[]": must evaluate to list(JSONPatch) but got list(dyn)',
    ]);
  });
  const apply = (expression: string) =>
    map({
      ...okM(),
      mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression } }],
    });
  const patch = (expression: string) =>
    map({ ...okM(), mutations: [{ patchType: "JSONPatch", jsonPatch: { expression } }] });
  it("validateMutation: a truncated applyConfiguration expression is a syntax error", () => {
    const errs = apply("Object{ metadata: ");
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(
      /^spec\.mutations\[0\]\.applyConfiguration\.expression: Invalid value: "Object\{ metadata:": compilation failed: ERROR: <input>:1:\d+: Syntax error/,
    );
  });
  it("validateMutation: a broken JSONPatch construction is a syntax error", () => {
    expect(patch('[JSONPatch{op: "add", path: "/metadata/labels" value: {}}]')).toEqual([
      expect.stringMatching(/jsonPatch\.expression: Invalid value: .*Syntax error/),
    ]);
  });
  it("validateMutation: well-formed message constructions pass", () => {
    expect(apply('Object{ metadata: Object.metadata{ labels: {"team": "a{b"} } }')).toEqual([]);
    expect(
      patch(
        '[JSONPatch{op: "add", path: "/metadata/labels", value: {"a": "b"}}, JSONPatch{op: "remove", path: "/x"}]',
      ),
    ).toEqual([]);
    expect(
      apply("Object{ spec: Object.spec{ replicas: object.spec.replicas in [1, 2] ? 3 : 4 } }"),
    ).toEqual([]);
  });
});
