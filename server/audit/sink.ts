import "server-only";
import { timingSafeEqual } from "node:crypto";
import { parseEventListBody } from "@/lib/admission/audit/audit-batch";
import { KubeApiError } from "@/lib/k8s/errors";
import { readBodyBytes, RequestBodyError } from "@/server/http/body";
import { fail, handle, respond } from "@/server/http/respond";
import { auditSinkRoute, type AuditBatchResult } from "@/lib/api/audit";
import { storeDecisions } from "@/server/decisions/instance";
import { changesOfEventListBody, recordChanges } from "@/server/history/ingest";
import { dashboardError } from "@/lib/api/contract";
import { MAX_AUDIT_BODY_BYTES } from "@/lib/http/json-limits";

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

/** What the audit sink's TLS listener knows of the client certificate a sender presented. */
export interface PeerCertificate {
  /** A certificate was presented. */
  presented: boolean;
  /** It chains to PORTCULLIS_AUDIT_CLIENT_CA_FILE (TLS verified it: dates, signature, usage). */
  verified: boolean;
  /** Why TLS did not verify it (OpenSSL's code, e.g. UNABLE_TO_VERIFY_LEAF_SIGNATURE). */
  verifyError?: string;
  /** The subject's common names (one in any sane certificate). */
  commonNames: string[];
}

/**
 * Authenticates a sender on the audit sink's TLS listener: a verified client certificate (whose
 * common name is in `allowedNames` when that is given), or else the bearer token exactly as
 * authorizeAuditSender checks it on /api/audit. A failure is 401 and says what was wrong with the
 * certificate and with the token.
 */
export function authorizeAuditClient(
  peer: PeerCertificate,
  authorization: string | null,
  allowedNames?: readonly string[],
): AuditAuthResult {
  let certificate: string;
  if (!peer.presented) {
    certificate = "no client certificate";
  } else if (!peer.verified) {
    certificate = `the client certificate is not signed by PORTCULLIS_AUDIT_CLIENT_CA_FILE (${peer.verifyError ?? "not verified"})`;
  } else if (!allowedNames) {
    return { ok: true };
  } else if (
    peer.commonNames.length === 1 &&
    allowedNames.includes(peer.commonNames[0] as string)
  ) {
    return { ok: true };
  } else {
    const names = peer.commonNames.map((n) => JSON.stringify(n)).join(", ") || "none";
    certificate = `the client certificate's common name (${names}) is not in PORTCULLIS_AUDIT_CLIENT_NAMES`;
  }
  if (!authorization) {
    return { ok: false, status: 401, message: `${certificate}, and no bearer token` };
  }
  const token = authorizeAuditSender(authorization);
  if (token.ok) return token;
  return {
    ok: false,
    status: 401,
    message: `${certificate}, and ${token.status === 503 ? "a bearer token was sent but PORTCULLIS_AUDIT_TOKEN is not set" : "a wrong bearer token"}`,
  };
}

/**
 * The audit sink's answer to one POST, however it arrived (the /api/audit route, the TLS
 * listener): the sender's authentication failure as is, else the batch read (at most
 * MAX_AUDIT_BODY_BYTES) and stored.
 */
export async function receiveAuditBatch(
  request: Request,
  auth: AuditAuthResult,
): Promise<Response> {
  if (!auth.ok) {
    return fail(auditSinkRoute, {
      status: auth.status,
      reason: auth.status === 401 ? "Unauthorized" : "ServiceUnavailable",
      message: auth.message,
    });
  }
  return handle(async () => {
    const body = await readBodyBytes(request, MAX_AUDIT_BODY_BYTES);
    return respond(auditSinkRoute, await ingestAuditBatch(body));
  });
}

/**
 * Parses one EventList body (its UTF-8 bytes, as sent) and stores its decisions durably before
 * returning. Bad input throws a 400 RequestBodyError (nothing stored); a storage failure throws a
 * 503 so the apiserver retries the batch.
 */
async function ingestAuditBatch(body: Uint8Array): Promise<AuditBatchResult> {
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
    // Writes to admission configuration: the change history (none in most batches).
    await recordChanges(changesOfEventListBody(body));
    return { accepted: events.length, stored: result.stored, duplicates: result.duplicates };
  } catch (e) {
    throw new KubeApiError(
      dashboardError({
        status: 503,
        reason: "StorageUnavailable",
        message: `the decision store could not save this batch (the apiserver will retry it): ${e instanceof Error ? e.message : String(e)}`,
      }),
    );
  }
}
