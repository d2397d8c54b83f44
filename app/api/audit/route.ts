import { z } from "zod";
import { readBodyText, RequestBodyError } from "@/server/http/body";
import { errorResponse, handle, json } from "@/server/http/respond";
import {
  authorizeAuditSender,
  ingestAuditBatch,
  MAX_AUDIT_BODY_BYTES,
  recentDecisions,
} from "@/server/audit/sink";
import { authorizeDecisionsRead } from "@/server/audit/access";

export const dynamic = "force-dynamic";

/** The apiserver's audit webhook backend posts audit.k8s.io/v1 EventList batches here. */
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
    const text = await readBodyText(request, MAX_AUDIT_BODY_BYTES);
    try {
      return json({ accepted: ingestAuditBatch(text) });
    } catch (e) {
      throw new RequestBodyError(400, "BadRequest", e instanceof Error ? e.message : String(e));
    }
  });
}

const query = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  auditID: z.string().max(64).optional(),
});

/**
 * Recent admission decisions received from the apiserver, newest first; only for identities the
 * apiserver allows to read them (see server/audit/access.ts).
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    await authorizeDecisionsRead(request);
    const q = query.parse(Object.fromEntries(new URL(request.url).searchParams));
    const store = recentDecisions();
    return json({ received: store.received, items: store.list(q) });
  });
}
