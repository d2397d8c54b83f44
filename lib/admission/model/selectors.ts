/**
 * Label selector evaluation with the semantics of k8s.io/apimachinery `labels.Selector` as built
 * by `metav1.LabelSelectorAsSelector`: matchLabels and matchExpressions are ANDed, an empty
 * selector matches everything, and a nil selector matches nothing (webhook and policy selectors
 * are defaulted to `{}` in v1, so callers pass `absent: "everything"` for them).
 */
import type { V1LabelSelector } from "@/lib/k8s/types";

/** Label sets as they appear in object metadata. */
export type Labels = Readonly<Record<string, string>>;

/** The operators `metav1.LabelSelectorRequirement` accepts. */
type SelectorOperator = "In" | "NotIn" | "Exists" | "DoesNotExist";

/** One requirement of a compiled selector; matchLabels entries become `In` with one value. */
export interface CompiledRequirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  readonly values: readonly string[];
  /** Set when the requirement came from matchLabels (shown as `key=value`). */
  readonly fromMatchLabels: boolean;
}

/** A selector compiled once for many evaluations. */
export interface CompiledSelector {
  /** No requirements: matches every label set (apimachinery `Selector.Empty()`). */
  readonly empty: boolean;
  /** A nil selector where nil means "nothing" (`labels.Nothing()`). */
  readonly nothing: boolean;
  /** Sorted by key, like `internalSelector.Add`. */
  readonly requirements: readonly CompiledRequirement[];
  /** The parse error `LabelSelectorAsSelector` would return; such a selector matches nothing. */
  readonly error: string | undefined;
  /** Canonical string form, e.g. `app=web,runlevel notin (0,1)`. */
  readonly text: string;
}

/** Why one requirement rejected a label set. */
export interface RequirementMismatch {
  readonly key: string;
  readonly operator: SelectorOperator;
  readonly values: readonly string[];
  /** The label's value on the object, or undefined when the label is absent. */
  readonly actual: string | undefined;
  /** A human sentence, e.g. `label runlevel is "0", which is in (0,1)`. */
  readonly message: string;
}

const EVERYTHING: CompiledSelector = {
  empty: true,
  nothing: false,
  requirements: [],
  error: undefined,
  text: "",
};

const NOTHING: CompiledSelector = {
  empty: false,
  nothing: true,
  requirements: [],
  error: undefined,
  text: "<nothing>",
};

const OPERATORS: ReadonlySet<string> = new Set(["In", "NotIn", "Exists", "DoesNotExist"]);

/** Reads a label without tripping over prototype keys such as `constructor`. */
export function labelValue(labels: Labels | undefined | null, key: string): string | undefined {
  if (!labels) return undefined;
  const v: unknown = labels[key];
  return typeof v === "string" && Object.prototype.hasOwnProperty.call(labels, key) ? v : undefined;
}

/**
 * Whether labels carry every key of an equality selector with its value (a Service's or a
 * workload's `selector`); an empty value still needs the key.
 */
export function selectsLabels(
  selector: Readonly<Record<string, string>>,
  labels: Labels | undefined | null,
): boolean {
  for (const [k, v] of Object.entries(selector)) if (labelValue(labels, k) !== v) return false;
  return true;
}

/** A requirement as apimachinery prints it, e.g. `runlevel notin (0,1)`. */
export function requirementText(r: CompiledRequirement): string {
  switch (r.operator) {
    case "Exists":
      return r.key;
    case "DoesNotExist":
      return `!${r.key}`;
    case "In":
      return r.fromMatchLabels
        ? `${r.key}=${r.values[0] ?? ""}`
        : `${r.key} in (${r.values.join(",")})`;
    case "NotIn":
      return `${r.key} notin (${r.values.join(",")})`;
  }
}

/**
 * Compiles a selector. `absent` says what a missing selector means: `"everything"` for the
 * defaulted v1 webhook/policy fields, `"nothing"` for the raw apimachinery conversion.
 */
export function compileSelector(
  selector: V1LabelSelector | null | undefined,
  absent: "everything" | "nothing" = "everything",
): CompiledSelector {
  if (selector === null || selector === undefined)
    return absent === "everything" ? EVERYTHING : NOTHING;
  const reqs: CompiledRequirement[] = [];
  let error: string | undefined;
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    reqs.push({ key, operator: "In", values: [String(value)], fromMatchLabels: true });
  }
  for (const expr of selector.matchExpressions ?? []) {
    const op = expr.operator;
    const values = [...(expr.values ?? [])];
    if (!OPERATORS.has(op)) {
      error ??= `"${op}" is not a valid label selector operator`;
      continue;
    }
    const operator = op as SelectorOperator;
    if ((operator === "In" || operator === "NotIn") && values.length === 0) {
      error ??= `values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty`;
    }
    if ((operator === "Exists" || operator === "DoesNotExist") && values.length > 0) {
      error ??= `values: Invalid value: ${JSON.stringify(values)}: values set must be empty for exists and does not exist`;
    }
    // Values are a set in apimachinery; sorting gives the same canonical text it prints.
    reqs.push({
      key: expr.key,
      operator,
      values: [...new Set(values)].sort(),
      fromMatchLabels: false,
    });
  }
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const text = reqs.map(requirementText).join(",");
  if (error !== undefined) return { empty: false, nothing: true, requirements: reqs, error, text };
  return { empty: reqs.length === 0, nothing: false, requirements: reqs, error: undefined, text };
}

function requirementMatches(r: CompiledRequirement, labels: Labels | undefined | null): boolean {
  return requirementMatchesValue(r, labelValue(labels, r.key));
}

/** One requirement against the value of its key (`undefined` = label absent). */
export function requirementMatchesValue(
  r: CompiledRequirement,
  actual: string | undefined,
): boolean {
  switch (r.operator) {
    case "Exists":
      return actual !== undefined;
    case "DoesNotExist":
      return actual === undefined;
    case "In":
      return actual !== undefined && r.values.includes(actual);
    case "NotIn":
      return actual === undefined || !r.values.includes(actual);
  }
}

/** `labels.Selector.Matches(labels.Set(labels))`. */
export function selectorMatches(
  selector: CompiledSelector,
  labels: Labels | undefined | null,
): boolean {
  if (selector.empty) return true;
  if (selector.nothing) return false;
  const reqs = selector.requirements;
  for (let i = 0; i < reqs.length; i++) {
    if (!requirementMatches(reqs[i] as CompiledRequirement, labels)) return false;
  }
  return true;
}

/**
 * `selectorMatches` when the label `key` is present with a value known only as one `could`
 * accept: true or false when that value cannot change the outcome, else the first requirement
 * on `key` the outcome depends on.
 */
export function selectorMatchesUnknownValue(
  selector: CompiledSelector,
  labels: Labels | undefined | null,
  key: string,
  could: (value: string) => boolean,
): boolean | CompiledRequirement {
  if (selector.empty) return true;
  if (selector.nothing) return false;
  let depends: CompiledRequirement | undefined;
  for (const r of selector.requirements) {
    if (r.key !== key) {
      if (!requirementMatches(r, labels)) return false;
      continue;
    }
    switch (r.operator) {
      case "Exists":
        break;
      case "DoesNotExist":
        return false;
      case "In":
        if (!r.values.some(could)) return false;
        depends ??= r;
        break;
      case "NotIn":
        if (r.values.some(could)) depends ??= r;
        break;
    }
  }
  return depends ?? true;
}

function mismatchMessage(r: CompiledRequirement, actual: string | undefined): string {
  const shown = actual === undefined ? "absent" : `"${actual}"`;
  switch (r.operator) {
    case "Exists":
      return `label ${r.key} is absent, but the selector requires it to exist`;
    case "DoesNotExist":
      return `label ${r.key} is ${shown}, but the selector requires it to be absent`;
    case "In":
      return r.fromMatchLabels
        ? `label ${r.key} is ${shown}, but matchLabels requires "${r.values[0] ?? ""}"`
        : `label ${r.key} is ${shown}, which is not in (${r.values.join(",")})`;
    case "NotIn":
      return `label ${r.key} is ${shown}, which is in (${r.values.join(",")})`;
  }
}

/**
 * Every requirement that rejects `labels` (empty when the selector matches). A selector that
 * could not be parsed reports its parse error as a single entry with key `""`.
 */
export function explainSelectorMismatch(
  selector: CompiledSelector,
  labels: Labels | undefined | null,
): RequirementMismatch[] {
  if (selector.empty) return [];
  if (selector.nothing) {
    return [
      {
        key: "",
        operator: "In",
        values: [],
        actual: undefined,
        message: selector.error ?? "a nil selector matches nothing",
      },
    ];
  }
  const out: RequirementMismatch[] = [];
  for (const r of selector.requirements) {
    if (requirementMatches(r, labels)) continue;
    const actual = labelValue(labels, r.key);
    out.push({
      key: r.key,
      operator: r.operator,
      values: r.values,
      actual,
      message: mismatchMessage(r, actual),
    });
  }
  return out;
}
