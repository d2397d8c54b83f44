/** Rules and selectors in plain words, for the detail page. Pure. */
import type { V1LabelSelector, V1RuleWithOperations } from "@/lib/k8s/types";

export function explainOperations(ops: readonly string[] | undefined): string {
  if (!ops || ops.length === 0) return "no operation (never matches)";
  if (ops.includes("*")) return "any operation, including ones added in future releases";
  return ops.join(", ");
}

export function explainGroups(groups: readonly string[] | undefined): string {
  if (!groups || groups.length === 0) return "no group (never matches)";
  if (groups.includes("*")) return "any API group";
  return groups.map((g) => (g === "" ? 'the core group ("")' : g)).join(", ");
}

export function explainVersions(versions: readonly string[] | undefined): string {
  if (!versions || versions.length === 0) return "no version (never matches)";
  if (versions.includes("*")) return "any version";
  return versions.join(", ");
}

/** One resources entry in words, wildcards and subresources spelled out. */
export function explainResource(r: string): string {
  if (r === "*") return "every resource, but none of their subresources";
  if (r === "*/*") return "every resource and every subresource";
  const slash = r.indexOf("/");
  if (slash < 0) return r;
  const res = r.slice(0, slash);
  const sub = r.slice(slash + 1);
  if (res === "*") return `the ${sub} subresource of every resource that has one`;
  if (sub === "*") return `every subresource of ${res} (not ${res} itself)`;
  return `the ${sub} subresource of ${res}`;
}

export function explainScope(scope: string | undefined): string {
  switch (scope ?? "*") {
    case "Cluster":
      return "cluster-scoped objects only (a Namespace counts as cluster-scoped)";
    case "Namespaced":
      return "namespaced objects only";
    default:
      return "cluster-scoped and namespaced objects";
  }
}

/** A whole rule as one sentence. */
export function explainRule(r: V1RuleWithOperations): string {
  return `${explainOperations(r.operations)} of ${(r.resources ?? []).map(explainResource).join("; ")} in ${explainGroups(r.apiGroups)} at ${explainVersions(r.apiVersions)}; ${explainScope(r.scope)}`;
}

/** A selector requirement as a chip label and its meaning. */
export interface SelectorChip {
  label: string;
  meaning: string;
}

export function selectorChips(sel: V1LabelSelector | undefined): SelectorChip[] {
  const out: SelectorChip[] = [];
  for (const [k, v] of Object.entries(sel?.matchLabels ?? {}))
    out.push({ label: `${k}=${v}`, meaning: `label ${k} is "${v}"` });
  for (const e of sel?.matchExpressions ?? []) {
    const vals = (e.values ?? []).map((v) => `"${v}"`).join(", ");
    switch (e.operator) {
      case "In":
        out.push({
          label: `${e.key} in (${(e.values ?? []).join(",")})`,
          meaning: `label ${e.key} is one of ${vals}`,
        });
        break;
      case "NotIn":
        out.push({
          label: `${e.key} notin (${(e.values ?? []).join(",")})`,
          meaning: `label ${e.key} is absent or not one of ${vals}`,
        });
        break;
      case "Exists":
        out.push({ label: e.key, meaning: `has a label ${e.key} (any value)` });
        break;
      case "DoesNotExist":
        out.push({ label: `!${e.key}`, meaning: `has no label ${e.key}` });
        break;
      default:
        out.push({
          label: `${e.key} ${e.operator}`,
          meaning: `unsupported operator ${e.operator}`,
        });
    }
  }
  return out;
}
