import { describe, expect, it } from "vitest";
import { errorBody } from "./field-error";
import { FieldPath } from "./field-path";
import type { JsonObject } from "./json";
import { validateLabelSelector } from "./label-selector";

const p = FieldPath.root("sel");
const run = (s: JsonObject, allowInvalid = false) =>
  validateLabelSelector(s, { allowInvalidLabelValueInSelector: allowInvalid }, p).map(
    (e) => `${e.field}: ${errorBody(e)}`,
  );

describe("ValidateLabelSelector", () => {
  const cases: [string, JsonObject, string][] = [
    [
      "In/NotIn need values",
      { matchExpressions: [{ key: "a", operator: "In" }] },
      "sel.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ],
    [
      "Exists/DoesNotExist forbid values",
      { matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] },
      "sel.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ],
    [
      "unknown operator",
      { matchExpressions: [{ key: "a", operator: "in", values: ["x"] }] },
      'sel.matchExpressions[0].operator: Invalid value: "in": not a valid selector operator',
    ],
    [
      "key must be a qualified name",
      { matchExpressions: [{ key: "a b", operator: "Exists" }] },
      'sel.matchExpressions[0].key: Invalid value: "a b": name part must consist of alphanumeric characters',
    ],
    [
      "values must be label values",
      { matchExpressions: [{ key: "a", operator: "In", values: ["a b"] }] },
      'sel.matchExpressions[0].values[0]: Invalid value: "a b": a valid label must be an empty string',
    ],
    [
      "matchLabels errors are reported at matchLabels",
      { matchLabels: { a: "b c" } },
      'sel.matchLabels: Invalid value: "b c": a valid label must be an empty string',
    ],
  ];
  for (const [name, s, want] of cases)
    it(name, () => {
      const got = run(s);
      expect(got).toHaveLength(1);
      expect(got[0]!.startsWith(want)).toBe(true);
    });
  it("AllowInvalidLabelValueInSelector skips value checks (ratcheting)", () => {
    expect(
      run({ matchExpressions: [{ key: "a", operator: "In", values: ["a b"] }] }, true),
    ).toEqual([]);
  });
});
