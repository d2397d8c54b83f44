import "server-only";
import { timingSafeEqual } from "node:crypto";
import { parseEventListBody } from "@/lib/admission/audit-batch";
import { KubeApiError } from "@/lib/k8s/errors";
import { RequestBodyError } from "@/server/http/body";
import { storeDecisions } from "@/server/decisions/instance";

/** Audit batches larger than this are refused (the apiserver's batches are far smaller). */
export const MAX_AUDIT_BODY_BYTES = 16 * 1024 * 1024;

export type AuditAuthResult = { ok: true } | { ok: false; status: 401 | 503; message: string };

/**
 * Checks the bearer token the apiserver's audit webhook sends against PORTCULLIS_AUDIT_TOKEN
 * (constant-time). Without a configured token the sink refuses everything.
 */
export function authorizeAuditSender(authorization: string | null): AuditAuthResult {
  const expected = process.env.PORTCULLIS_AUDIT_TOKEN;
  if (!expected) {
    return {
      ok: false,
      status: 503,
      message: "the audit sink is not configured: set PORTCULLIS_AUDIT_TOKEN",
    };
  }
  const m = /^Bearer\s+(.+)$/i.exec(authorization ?? "");
  const given = Buffer.from(m?.[1]?.trim() ?? "");
  const want = Buffer.from(expected);
  if (given.length !== want.length || !timingSafeEqual(given, want)) {
    return { ok: false, status: 401, message: "missing or wrong bearer token for the audit sink" };
  }
  return { ok: true };
}

/**
 * Parses one EventList body (its UTF-8 bytes, as sent) and stores its decisions durably before
 * returning. Bad input throws a 400 RequestBodyError (nothing stored); a storage failure throws a
 * 503 so the apiserver retries the batch.
 */
export async function ingestAuditBatch(
  body: Uint8Array,
): Promise<{ accepted: number; stored: number; duplicates: number }> {
  let events;
  try {
    events = parseEventListBody(body);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new RequestBodyError(
      400,
      "BadRequest",
      e instanceof SyntaxError ? `audit batch is not JSON: ${message}` : message,
    );
  }
  try {
    const result = await storeDecisions(events);
    return { accepted: events.length, stored: result.stored, duplicates: result.duplicates };
  } catch (e) {
    throw new KubeApiError({
      status: 503,
      reason: "StorageUnavailable",
      message: `the decision store could not save this batch (the apiserver will retry it): ${e instanceof Error ? e.message : String(e)}`,
      cluster: "",
    });
  }
}
