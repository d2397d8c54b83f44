import { describe, expect, it } from "vitest";
import { errorBody } from "./field-error";
import { FieldPath } from "./field-path";
import {
  validateResources,
  validateResourcesNoSubResources,
  validateRuleWithOperations,
} from "./rules";

const p = FieldPath.root("resources");
const fields = (res: string[]) =>
  validateResources(res, p).map((e) => `${e.field}: ${errorBody(e)}`);

describe("validateResources", () => {
  const cases: [string, string[], string[]][] = [
    ["validateResources: empty list is Required", [], ["resources: Required value"]],
    [
      "validateResources: empty entry is Required at the index",
      ["pods", ""],
      ["resources[1]: Required value"],
    ],
    ["validateResources: '*' alone", ["*"], []],
    ["validateResources: '*/*' alone", ["*/*"], []],
    [
      "validateResources: '*/*' with others",
      ["*/*", "pods"],
      [
        'resources: Invalid value: ["*/*","pods"]: if \'*/*\' is present, must not specify other resources',
      ],
    ],
    [
      "validateResources: '*' then plain resource is rejected",
      ["*", "pods"],
      [
        'resources: Invalid value: ["*","pods"]: if \'*\' is present, must not specify other resources without subresources',
      ],
    ],
    [
      "validateResources quirk: plain resource then '*' is accepted (flag overwritten)",
      ["pods", "*"],
      [],
    ],
    [
      "validateResources: '<res>/*' before '<res>/<sub>' is rejected",
      ["pods/*", "pods/status"],
      [
        "resources[1]: Invalid value: \"pods/status\": if 'pods/*' is present, must not specify pods/status",
      ],
    ],
    [
      "validateResources quirk: '<res>/<sub>' before '<res>/*' is accepted",
      ["pods/status", "pods/*"],
      [],
    ],
    [
      "validateResources: '*/<sub>' before '<res>/<sub>' is rejected",
      ["*/status", "pods/status"],
      [
        "resources[1]: Invalid value: \"pods/status\": if '*/status' is present, must not specify pods/status",
      ],
    ],
    [
      "validateResources quirk: '<res>/<sub>' before '*/<sub>' is accepted",
      ["pods/status", "*/status"],
      [],
    ],
    ["validateResources: '*' with subresources is fine", ["*", "pods/status"], []],
  ];
  for (const [name, input, want] of cases) it(name, () => expect(fields(input)).toEqual(want));
});

describe("validateResourcesNoSubResources (InitializerConfiguration)", () => {
  it("validateResourcesNoSubResources: subresource and wildcard rules", () => {
    const errs = validateResourcesNoSubResources(["pods/status", "*"], p).map(
      (e) => `${e.field}: ${errorBody(e)}`,
    );
    expect(errs).toEqual([
      'resources[0]: Invalid value: "pods/status": must not specify subresources',
      'resources: Invalid value: ["pods/status","*"]: if \'*\' is present, must not specify other resources',
    ]);
  });
});

describe("validateRuleWithOperations", () => {
  const rp = FieldPath.root("rules").at(0);
  const run = (r: Record<string, string[] | string>) =>
    validateRuleWithOperations(r, rp).map((e) => `${e.field}: ${errorBody(e)}`);
  const ok = { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] };
  const cases: [string, Record<string, string[] | string>, string[]][] = [
    ["validateRuleWithOperations: valid rule", ok, []],
    [
      "validateRuleWithOperations: operations required",
      { ...ok, operations: [] },
      ["rules[0].operations: Required value"],
    ],
    [
      "validateRuleWithOperations: '*' with other operations",
      { ...ok, operations: ["*", "CREATE"] },
      [
        'rules[0].operations: Invalid value: ["*","CREATE"]: if \'*\' is present, must not specify other operations',
      ],
    ],
    [
      "validateRuleWithOperations: unsupported operation",
      { ...ok, operations: ["PATCH"] },
      [
        'rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      ],
    ],
    [
      "validateRule: apiGroups required",
      { ...ok, apiGroups: [] },
      ["rules[0].apiGroups: Required value"],
    ],
    [
      "validateRule: '*' with other API groups",
      { ...ok, apiGroups: ["apps", "*"] },
      [
        'rules[0].apiGroups: Invalid value: ["apps","*"]: if \'*\' is present, must not specify other API groups',
      ],
    ],
    [
      "validateRule: empty API version entry",
      { ...ok, apiVersions: ["v1", ""] },
      ["rules[0].apiVersions[1]: Required value"],
    ],
    [
      "validateRule: unsupported scope",
      { ...ok, scope: "All" },
      ['rules[0].scope: Unsupported value: "All": supported values: "*", "Cluster", "Namespaced"'],
    ],
  ];
  for (const [name, input, want] of cases) it(name, () => expect(run(input)).toEqual(want));
});
