/**
 * Changes read from the apiserver's audit events: the sink hands every batch it receives here
 * (after its decisions are stored, before it answers), so a change is durable once the apiserver
 * is told 200; a storage failure fails the batch and the apiserver sends it again (the changes
 * are keyed, a repeat is kept once).
 */
import "server-only";
import {
  changesOfAuditEvent,
  mayHoldChanges,
  type ChangeDraft,
} from "@/lib/admission/history/changes";
import { SHARED_CONTEXT } from "@/lib/auth/mode";
import { isSharedMode } from "@/server/kube/config";
import { historyStore, pruneHistorySoon } from "./instance";

/**
 * The context whose apiserver sends its audit events to this dashboard (as the fleet page counts
 * its decisions): PORTCULLIS_DECISIONS_CONTEXT in local mode, the one cluster in shared mode; ""
 * when not named (the audit records' context is then unknown).
 */
function auditContext(env: NodeJS.ProcessEnv = process.env): string {
  if (isSharedMode()) return SHARED_CONTEXT;
  return env.PORTCULLIS_DECISIONS_CONTEXT ?? "";
}

/** The changes of an audit EventList body (its UTF-8 bytes); none for a batch without any. */
export function changesOfEventListBody(body: Uint8Array): ChangeDraft[] {
  // Most batches hold no admission configuration write: one scan of the bytes, no parse.
  if (
    Buffer.from(body.buffer, body.byteOffset, body.byteLength).indexOf(
      "admissionregistration.k8s.io",
    ) < 0
  )
    return [];
  const text = new TextDecoder().decode(body);
  if (!mayHoldChanges(text)) return [];
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    return [];
  }
  const items = (list as { items?: unknown }).items;
  return Array.isArray(items) ? items.flatMap((e) => changesOfAuditEvent(e)) : [];
}

/**
 * Stores changes: of audit events (already parsed, e.g. a log's lines; their context is
 * auditContext's), or of the watch (with its context).
 */
export async function recordChanges(changes: readonly ChangeDraft[]): Promise<number> {
  if (changes.length === 0) return 0;
  const store = await historyStore();
  // An audit event's change is seen through the context whose apiserver sends the events here.
  const context = auditContext();
  const n = await store.record(
    changes.map((c) => (c.context === undefined && c.source === "audit" ? { ...c, context } : c)),
  );
  pruneHistorySoon(store);
  return n;
}
