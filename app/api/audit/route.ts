import { readBodyBytes } from "@/server/http/body";
import { errorResponse, handle, json } from "@/server/http/respond";
import { authorizeAuditSender, ingestAuditBatch, MAX_AUDIT_BODY_BYTES } from "@/server/audit/sink";

export const dynamic = "force-dynamic";

/**
 * The apiserver's audit webhook backend posts audit.k8s.io/v1 EventList batches here. 200 only
 * once the batch is stored; 5xx when storage fails (the apiserver retries). Decisions are read
 * through /api/decisions, which checks the reader's RBAC.
 */
export async function POST(request: Request): Promise<Response> {
  const auth = authorizeAuditSender(request.headers.get("authorization"));
  if (!auth.ok) {
    return errorResponse({
      status: auth.status,
      reason: auth.status === 401 ? "Unauthorized" : "ServiceUnavailable",
      message: auth.message,
      cluster: "",
    });
  }
  return handle(async () => {
    const body = await readBodyBytes(request, MAX_AUDIT_BODY_BYTES);
    return json(await ingestAuditBatch(body));
  });
}
