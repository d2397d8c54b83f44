import { describe, expect, it } from "vitest";
import {
  compileSelector,
  explainSelectorMismatch,
  selectorMatches,
  selectsLabels,
  selectorMatchesUnknownValue,
} from "@/lib/admission/model/selectors";
import {
  couldBeGeneratedName,
  generatedNamespaceBase,
  makeRequest,
} from "@/lib/admission/model/request";
import type { V1LabelSelector } from "@/lib/k8s/types";

// Mirrors k8s.io/apimachinery pkg/labels (internalSelector.Matches, Requirement.Matches) and
// metav1.LabelSelectorAsSelector.
const cases: Array<{
  mirrors: string;
  selector: V1LabelSelector | undefined;
  labels: Record<string, string> | undefined;
  want: boolean;
}> = [
  {
    mirrors: "LabelSelectorAsSelector: empty selector → labels.Everything()",
    selector: {},
    labels: { a: "b" },
    want: true,
  },
  {
    mirrors: "SetDefaults_*Webhook: absent selector defaults to {}",
    selector: undefined,
    labels: undefined,
    want: true,
  },
  {
    mirrors: "matchLabels → Equals requirement",
    selector: { matchLabels: { app: "web" } },
    labels: { app: "web" },
    want: true,
  },
  {
    mirrors: "matchLabels → Equals requirement (wrong value)",
    selector: { matchLabels: { app: "web" } },
    labels: { app: "db" },
    want: false,
  },
  {
    mirrors: "matchLabels and matchExpressions are ANDed",
    selector: {
      matchLabels: { app: "web" },
      matchExpressions: [{ key: "env", operator: "In", values: ["prod"] }],
    },
    labels: { app: "web", env: "dev" },
    want: false,
  },
  {
    mirrors: "Requirement.Matches In: label absent → false",
    selector: { matchExpressions: [{ key: "env", operator: "In", values: ["prod"] }] },
    labels: {},
    want: false,
  },
  {
    mirrors: "Requirement.Matches NotIn: label absent → true",
    selector: { matchExpressions: [{ key: "runlevel", operator: "NotIn", values: ["0", "1"] }] },
    labels: {},
    want: true,
  },
  {
    mirrors: "Requirement.Matches NotIn: value listed → false",
    selector: { matchExpressions: [{ key: "runlevel", operator: "NotIn", values: ["0", "1"] }] },
    labels: { runlevel: "0" },
    want: false,
  },
  {
    mirrors: "Requirement.Matches NotIn: other value → true",
    selector: { matchExpressions: [{ key: "runlevel", operator: "NotIn", values: ["0", "1"] }] },
    labels: { runlevel: "2" },
    want: true,
  },
  {
    mirrors: "Requirement.Matches Exists",
    selector: { matchExpressions: [{ key: "x", operator: "Exists" }] },
    labels: { x: "" },
    want: true,
  },
  {
    mirrors: "Requirement.Matches DoesNotExist",
    selector: { matchExpressions: [{ key: "x", operator: "DoesNotExist" }] },
    labels: { x: "" },
    want: false,
  },
  {
    mirrors: "labels.Set(nil): DoesNotExist matches nil labels",
    selector: { matchExpressions: [{ key: "x", operator: "DoesNotExist" }] },
    labels: undefined,
    want: true,
  },
  {
    mirrors: "NewRequirement: In with empty values is an error → matches nothing",
    selector: { matchExpressions: [{ key: "x", operator: "In", values: [] }] },
    labels: { x: "a" },
    want: false,
  },
  {
    mirrors: "NewRequirement: Exists with values is an error",
    selector: { matchExpressions: [{ key: "x", operator: "Exists", values: ["a"] }] },
    labels: { x: "a" },
    want: false,
  },
  {
    mirrors: "LabelSelectorAsSelector: unknown operator is an error",
    selector: { matchExpressions: [{ key: "x", operator: "Gt", values: ["1"] }] },
    labels: { x: "2" },
    want: false,
  },
  {
    mirrors: "labels.Set lookup: prototype keys are not labels",
    selector: { matchExpressions: [{ key: "constructor", operator: "Exists" }] },
    labels: {},
    want: false,
  },
];

describe("selectorMatches", () => {
  it.each(cases)("$mirrors", ({ selector, labels, want }) => {
    expect(selectorMatches(compileSelector(selector), labels)).toBe(want);
  });

  it("nil means Nothing when asked for raw apimachinery semantics (LabelSelectorAsSelector(nil))", () => {
    expect(selectorMatches(compileSelector(undefined, "nothing"), {})).toBe(false);
  });

  it("prints requirements sorted by key like internalSelector.String", () => {
    const sel = compileSelector({
      matchLabels: { z: "1" },
      matchExpressions: [
        { key: "a", operator: "NotIn", values: ["1", "0"] },
        { key: "m", operator: "DoesNotExist" },
      ],
    });
    expect(sel.text).toBe("a notin (0,1),!m,z=1");
  });
});

describe("explainSelectorMismatch", () => {
  it("names the failing requirement and the label's actual value", () => {
    const sel = compileSelector({
      matchExpressions: [
        { key: "runlevel", operator: "NotIn", values: ["0", "1"] },
        { key: "team", operator: "Exists" },
      ],
    });
    const out = explainSelectorMismatch(sel, { runlevel: "0", team: "x" });
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ key: "runlevel", operator: "NotIn", actual: "0" });
    expect(out[0]?.message).toBe('label runlevel is "0", which is in (0,1)');
  });

  it("reports an absent label", () => {
    const out = explainSelectorMismatch(compileSelector({ matchLabels: { app: "web" } }), {});
    expect(out[0]?.message).toBe('label app is absent, but matchLabels requires "web"');
  });

  it("reports a selector parse error", () => {
    const out = explainSelectorMismatch(
      compileSelector({ matchExpressions: [{ key: "x", operator: "In", values: [] }] }),
      {},
    );
    expect(out[0]?.message).toContain("values set can't be empty");
  });

  it("is empty when the selector matches", () => {
    expect(
      explainSelectorMismatch(compileSelector({ matchLabels: { a: "b" } }), { a: "b" }),
    ).toEqual([]);
  });
});

describe("a label whose value is known only by its shape (a name generateName gives)", () => {
  const K = "kubernetes.io/metadata.name";
  const could = (v: string) => couldBeGeneratedName(v, "web-");
  const m = (selector: V1LabelSelector, labels: Record<string, string> = {}) => {
    const v = selectorMatchesUnknownValue(compileSelector(selector), labels, K, could);
    return typeof v === "boolean" ? v : `depends on ${v.operator} (${v.values.join(",")})`;
  };
  const ex = (operator: string, ...values: string[]) => ({
    matchExpressions: [{ key: K, operator, ...(values.length > 0 ? { values } : {}) }],
  });
  it.each([
    { selector: ex("Exists"), want: true },
    { selector: ex("DoesNotExist"), want: false },
    { selector: ex("In", "web-bcd2f"), want: "depends on In (web-bcd2f)" },
    { selector: ex("In", "web", "web-abcde", "web-bcd2"), want: false },
    { selector: ex("NotIn", "default"), want: true },
    { selector: ex("NotIn", "web-zz999"), want: "depends on NotIn (web-zz999)" },
    { selector: { matchLabels: { [K]: "web-bcd2f", team: "a" } }, want: false },
    {
      selector: { matchLabels: { [K]: "web-bcd2f", team: "a" } },
      labels: { team: "a" },
      want: "depends on In (web-bcd2f)",
    },
    { selector: {}, want: true },
  ])("$selector with $labels → $want", ({ selector, labels, want }) => {
    expect(m(selector, labels)).toBe(want);
  });

  it("the base is generateName cut to 58 characters (storage/names SimpleNameGenerator)", () => {
    const long = "a".repeat(70);
    const r = (metadata: Record<string, unknown>) =>
      generatedNamespaceBase(
        makeRequest({
          resource: "namespaces",
          operation: "CREATE",
          kind: { kind: "Namespace" },
          object: { metadata },
        }),
      );
    expect(r({ generateName: long })).toBe("a".repeat(58));
    expect(r({ generateName: "web-" })).toBe("web-");
    // A name given wins over generateName (store.go generates only without one).
    expect(r({ generateName: "web-", name: "web" })).toBeUndefined();
    expect(r({ name: "web" })).toBeUndefined();
    expect(couldBeGeneratedName(`${"a".repeat(58)}bcdfg`, "a".repeat(58))).toBe(true);
  });
});

describe("selectsLabels", () => {
  it("needs every key with its value; an empty value still needs the key", () => {
    expect(selectsLabels({ app: "x" }, { app: "x", more: "y" })).toBe(true);
    expect(selectsLabels({ app: "x", tier: "a" }, { app: "x" })).toBe(false);
    expect(selectsLabels({ tier: "" }, {})).toBe(false);
    expect(selectsLabels({ tier: "" }, { tier: "" })).toBe(true);
    expect(selectsLabels({ app: "x" }, undefined)).toBe(false);
    expect(selectsLabels({ toString: "x" }, {})).toBe(false);
  });
});
