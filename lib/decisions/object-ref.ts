import type { AuditRequestFacts } from "@/lib/admission/audit";

type Ref = Pick<AuditRequestFacts, "namespace" | "name" | "operation">;

/**
 * The object a decision's request named, as `namespace/name`. A CREATE without a name asked for
 * a generated one (`generateName`): the apiserver makes it after the audit event's object
 * reference was taken, so the event has none, and the feed says so instead of ending at a slash.
 * A request for a whole collection names no object: just its namespace, if any.
 */
export function objectRefText(r: Ref): string {
  const name = r.name || (r.operation === "CREATE" ? "(generated name)" : "");
  if (!r.namespace) return name;
  return name ? `${r.namespace}/${name}` : r.namespace;
}
