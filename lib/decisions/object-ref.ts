import type { AuditRequestFacts } from "@/lib/admission/audit/audit";
import { visibleText } from "./visible-text";

type Ref = Pick<AuditRequestFacts, "namespace" | "name" | "operation">;

/**
 * The object a decision's request named, as `namespace/name`. A CREATE without a name asked for
 * a generated one (`generateName`): the apiserver makes it after the audit event's object
 * reference was taken, so the event has none, and the feed says so instead of ending at a slash.
 * A request for a whole collection names no object: just its namespace, if any. A name's
 * bidirectional controls are written out (see visibleText): most names may hold any character
 * but a slash (a Role's, a ClusterRole's).
 */
export function objectRefText(r: Ref): string {
  const name = visibleText(r.name) || (r.operation === "CREATE" ? "(generated name)" : "");
  if (!r.namespace) return name;
  return name ? `${r.namespace}/${name}` : r.namespace;
}
