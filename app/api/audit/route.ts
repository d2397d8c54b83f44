import { z } from "zod";
import { errorResponse, handle, json } from "@/server/http/respond";
import {
  authorizeAuditSender,
  ingestAuditBatch,
  MAX_AUDIT_BODY_BYTES,
  recentDecisions,
} from "@/server/audit/sink";

export const dynamic = "force-dynamic";

async function readLimited(request: Request, limit: number): Promise<string | undefined> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) return undefined;
  const reader = request.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The apiserver's audit webhook backend posts audit.k8s.io/v1 EventList batches here. */
export async function POST(request: Request): Promise<Response> {
  const auth = authorizeAuditSender(request.headers.get("authorization"));
  if (!auth.ok)
    return errorResponse({
      status: auth.status,
      reason: auth.status === 401 ? "Unauthorized" : "ServiceUnavailable",
      message: auth.message,
      cluster: "",
    });
  const text = await readLimited(request, MAX_AUDIT_BODY_BYTES);
  if (text === undefined) {
    return errorResponse({
      status: 413,
      reason: "RequestEntityTooLarge",
      message: `audit batch larger than ${MAX_AUDIT_BODY_BYTES} bytes`,
      cluster: "",
    });
  }
  try {
    const accepted = ingestAuditBatch(text);
    return json({ accepted });
  } catch (e) {
    return errorResponse({
      status: 400,
      reason: "BadRequest",
      message: e instanceof Error ? e.message : String(e),
      cluster: "",
    });
  }
}

const query = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  auditID: z.string().max(64).optional(),
});

/** Recent admission decisions received from the apiserver, newest first. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const q = query.parse(Object.fromEntries(new URL(request.url).searchParams));
    const store = recentDecisions();
    return json({ received: store.received, items: store.list(q) });
  });
}
