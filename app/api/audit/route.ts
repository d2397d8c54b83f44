import { authorizeAuditSender, receiveAuditBatch } from "@/server/audit/sink";

export const dynamic = "force-dynamic";

/**
 * The apiserver's audit webhook backend posts audit.k8s.io/v1 EventList batches here. 200 only
 * once the batch is stored; 5xx when storage fails (the apiserver retries). Decisions are read
 * through /api/decisions, which checks the reader's RBAC. The sink's own TLS listener
 * (server/audit/tls-listener.ts) answers the same way.
 */
export async function POST(request: Request): Promise<Response> {
  return receiveAuditBatch(request, authorizeAuditSender(request.headers.get("authorization")));
}
