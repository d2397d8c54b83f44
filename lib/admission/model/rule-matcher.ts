/**
 * Rule matching, mirroring `webhook/predicates/rules/rules.go` `(*Matcher).Matches`: scope,
 * operation, group, version and resource must all match; `*` is a wildcard everywhere, and a
 * resource entry `res/sub` is split on the first `/` (`pods/*` also matches `pods` itself).
 */
/** The fields of a rule (webhook `RuleWithOperations` or policy `NamedRuleWithOperations`). */
export interface RuleInput {
  readonly operations?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly apiVersions?: readonly string[];
  readonly resources?: readonly string[];
  readonly scope?: string;
  readonly resourceNames?: readonly string[];
}

/** A rule prepared for fast matching. */
export interface CompiledRule {
  readonly index: number;
  readonly operations: readonly string[];
  readonly allOperations: boolean;
  readonly apiGroups: readonly string[];
  readonly allGroups: boolean;
  readonly apiVersions: readonly string[];
  readonly allVersions: boolean;
  /** `[resource, subresource]` pairs; `""` subresource means none. */
  readonly resources: ReadonlyArray<readonly [string, string]>;
  /** `*` (also when absent), `Cluster`, `Namespaced`; any other value matches nothing. */
  readonly scope: string;
  readonly resourceNames: readonly string[];
}

/** The attributes a rule is tested against (the GVR may be an equivalent's). */
export interface RuleAttributes {
  readonly operation: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  /** `attr.GetNamespace()`: the namespace's own name for Namespace requests. */
  readonly namespace: string;
  readonly name: string;
}

/** The rule field that failed first, in `Matches` order. */
type RuleField = "scope" | "operation" | "group" | "version" | "resource" | "resourceName";

/** Why one rule did not match. */
export interface RuleMismatch {
  readonly ruleIndex: number;
  readonly field: RuleField;
  readonly expected: readonly string[];
  readonly actual: string;
  readonly message: string;
}

function splitResource(entry: string): readonly [string, string] {
  const i = entry.indexOf("/");
  return i < 0 ? [entry, ""] : [entry.slice(0, i), entry.slice(i + 1)];
}

/** Compiles one rule; an absent scope is the v1 default `*` (`SetDefaults_Rule`). */
export function compileRule(rule: RuleInput, index: number): CompiledRule {
  const operations = rule.operations ?? [];
  const apiGroups = rule.apiGroups ?? [];
  const apiVersions = rule.apiVersions ?? [];
  return {
    index,
    operations,
    allOperations: operations.includes("*"),
    apiGroups,
    allGroups: apiGroups.includes("*"),
    apiVersions,
    allVersions: apiVersions.includes("*"),
    resources: (rule.resources ?? []).map(splitResource),
    scope: rule.scope ?? "*",
    resourceNames: rule.resourceNames ?? [],
  };
}

function isNamespacesGvr(a: RuleAttributes): boolean {
  return a.group === "" && a.version === "v1" && a.resource === "namespaces";
}

function scopeMatches(rule: CompiledRule, a: RuleAttributes): boolean {
  switch (rule.scope) {
    case "*":
      return true;
    case "Namespaced":
      return !isNamespacesGvr(a) && a.namespace !== "";
    case "Cluster":
      return isNamespacesGvr(a) || a.namespace === "";
    default:
      return false;
  }
}

function resourceMatches(rule: CompiledRule, a: RuleAttributes): boolean {
  const res = rule.resources;
  for (let i = 0; i < res.length; i++) {
    const pair = res[i] as readonly [string, string];
    if (
      (pair[0] === "*" || pair[0] === a.resource) &&
      (pair[1] === "*" || pair[1] === a.subresource)
    ) {
      return true;
    }
  }
  return false;
}

/** `rules.Matcher.Matches` (without resourceNames). */
export function ruleMatches(rule: CompiledRule, a: RuleAttributes): boolean {
  return (
    scopeMatches(rule, a) &&
    (rule.allOperations || rule.operations.includes(a.operation)) &&
    (rule.allGroups || rule.apiGroups.includes(a.group)) &&
    (rule.allVersions || rule.apiVersions.includes(a.version)) &&
    resourceMatches(rule, a)
  );
}

/** Policy `resourceNames`: empty matches every name (`matchesResourceRules`). */
export function resourceNameMatches(rule: CompiledRule, name: string): boolean {
  return rule.resourceNames.length === 0 || rule.resourceNames.includes(name);
}

const show = (v: string): string => (v === "" ? '""' : v);

/** The first field of the rule that rejects the attributes, or undefined when it matches. */
export function explainRuleMismatch(
  rule: CompiledRule,
  a: RuleAttributes,
): RuleMismatch | undefined {
  const mk = (field: RuleField, expected: readonly string[], actual: string, message: string) => ({
    ruleIndex: rule.index,
    field,
    expected,
    actual,
    message: `rule ${rule.index}: ${message}`,
  });
  if (!scopeMatches(rule, a)) {
    const actual = isNamespacesGvr(a) || a.namespace === "" ? "Cluster" : "Namespaced";
    return mk(
      "scope",
      [rule.scope],
      actual,
      `scope ${rule.scope} does not cover a ${actual.toLowerCase()}-scoped request`,
    );
  }
  if (!(rule.allOperations || rule.operations.includes(a.operation))) {
    return mk(
      "operation",
      rule.operations,
      a.operation,
      `operation ${a.operation} is not in [${rule.operations.join(", ")}]`,
    );
  }
  if (!(rule.allGroups || rule.apiGroups.includes(a.group))) {
    return mk(
      "group",
      rule.apiGroups,
      a.group,
      `API group ${show(a.group)} is not in [${rule.apiGroups.map(show).join(", ")}]`,
    );
  }
  if (!(rule.allVersions || rule.apiVersions.includes(a.version))) {
    return mk(
      "version",
      rule.apiVersions,
      a.version,
      `API version ${a.version} is not in [${rule.apiVersions.join(", ")}]`,
    );
  }
  if (!resourceMatches(rule, a)) {
    const actual = a.subresource === "" ? a.resource : `${a.resource}/${a.subresource}`;
    const entries = rule.resources.map(([r, s]) => (s === "" ? r : `${r}/${s}`));
    const hint =
      a.subresource !== "" && entries.some((e) => e === a.resource || e === "*")
        ? " (an entry without '/' matches no subresource)"
        : "";
    return mk(
      "resource",
      entries,
      actual,
      `resource ${actual} is not matched by [${entries.join(", ")}]${hint}`,
    );
  }
  if (!resourceNameMatches(rule, a.name)) {
    return mk(
      "resourceName",
      rule.resourceNames,
      a.name,
      `name ${show(a.name)} is not in resourceNames [${rule.resourceNames.join(", ")}]`,
    );
  }
  return undefined;
}
