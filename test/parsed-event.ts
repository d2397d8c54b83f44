/**
 * A parsed audit event for store tests: a configmap create in namespace "a" by alice at `time`,
 * with `extra` fields (responseStatus, annotations…) over it.
 */
import { parseAuditEvent, type ParsedAuditEvent } from "@/lib/admission/audit/audit";

export function parsedEvent(
  auditID: string,
  time: number,
  extra: Record<string, unknown>,
): ParsedAuditEvent {
  const p = parseAuditEvent({
    auditID,
    stage: "ResponseComplete",
    verb: "create",
    requestURI: "/api/v1/namespaces/a/configmaps",
    user: { username: "alice" },
    objectRef: { resource: "configmaps", namespace: "a", name: auditID, apiVersion: "v1" },
    stageTimestamp: new Date(time).toISOString(),
    ...extra,
  });
  if (!p) throw new Error("fixture did not parse");
  return p;
}
