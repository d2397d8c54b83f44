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
import { historyStore, pruneHistorySoon } from "./instance";

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

/** Stores the changes of audit events (already parsed, e.g. a log's lines). */
export async function recordChanges(changes: readonly ChangeDraft[]): Promise<number> {
  if (changes.length === 0) return 0;
  const store = await historyStore();
  const n = await store.record(changes);
  pruneHistorySoon(store);
  return n;
}
