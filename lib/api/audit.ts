/** /api/audit: the apiserver's audit webhook backend posts audit.k8s.io/v1 EventList batches here. */
import { route } from "./contract";

/** What one batch came to: its events, the decisions stored, the ones already stored. */
export interface AuditBatchResult {
  accepted: number;
  stored: number;
  duplicates: number;
}

/** The body is an EventList as the apiserver sends it, read by the sink itself (server/audit). */
export const auditSinkRoute = route<AuditBatchResult>()({ method: "POST", path: "/api/audit" });
