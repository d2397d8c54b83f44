/**
 * Storing a batch of events in a transaction: their decision rows, their texts packed, and (on
 * SQLite) the hooks' spans; a retried event is skipped whole.
 */
import "server-only";
import type { DecisionCall, DecisionRecord, ParsedAuditEvent } from "@/lib/admission/audit/audit";
import { sql, type SqlTx, type SqlValue } from "../sql";
import { withNameIds, type NameIds } from "./names";
import { packedTextRows } from "./packing";
import {
  EVENT_COLUMNS,
  EVENTS,
  INSERT_COLUMNS,
  SPAN_COLUMNS,
  SPANS,
  TABLE,
  UNIQUE_KEY,
  spansServeHooks,
  type Dialect,
} from "./schema";
import type { IngestResult, LogCursor } from "./types";

/** A decision's row, its values in INSERT_COLUMNS' order. */
function decisionRow(
  e: ParsedAuditEvent,
  d: DecisionCall,
  seq: number,
  eventId: number | null,
  id: (text: string) => number,
): SqlValue[] {
  const r = e.request;
  return [
    e.time,
    e.auditID,
    id(e.stage),
    seq,
    eventId,
    id(d.kind),
    id(d.hook),
    id(d.configuration),
    id(d.outcome),
    d.code ?? null,
    d.message,
    d.patch ?? null,
    d.round ?? null,
    d.index ?? null,
    id(r.namespace),
    id(r.user),
    id(r.resource),
    id(r.operation),
  ];
}

/** A stored decision as the API returns it, built field by field (no spread: this runs per row). */
function record(e: ParsedAuditEvent, d: DecisionCall, id: number): DecisionRecord {
  const rec: DecisionRecord = {
    kind: d.kind,
    hook: d.hook,
    configuration: d.configuration,
    outcome: d.outcome,
    message: d.message,
    id,
    auditID: e.auditID,
    stage: e.stage,
    time: e.time,
    request: e.request,
  };
  if (d.round !== undefined) rec.round = d.round;
  if (d.index !== undefined) rec.index = d.index;
  if (d.code !== undefined) rec.code = d.code;
  if (d.patch !== undefined) rec.patch = d.patch;
  return rec;
}

/**
 * One admission_hook_spans row per hook among a batch's stored decisions: its lowest and highest
 * id and time. (A batch's decisions have ids above every earlier batch's, so a hook's spans never
 * overlap.) SQLite only, through the driver's row insert (the ids it returns mean nothing here).
 */
async function insertSpans(tx: SqlTx, decisions: DecisionRecord[]): Promise<void> {
  const spans = new Map<string, { first: number; last: number; min: number; max: number }>();
  for (const d of decisions) {
    const s = spans.get(d.hook);
    if (!s) spans.set(d.hook, { first: d.id, last: d.id, min: d.time, max: d.time });
    else {
      if (d.id < s.first) s.first = d.id;
      if (d.id > s.last) s.last = d.id;
      if (d.time < s.min) s.min = d.time;
      if (d.time > s.max) s.max = d.time;
    }
  }
  await tx.insert({
    table: SPANS,
    columns: SPAN_COLUMNS,
    conflict: ["first_id", "hook"],
    rows: [...spans].map(([hook, s]) => [s.first, hook, s.last, s.min, s.max]),
  });
}

/**
 * Inserts a batch: first every event's first decision (which carries the event; a conflict there
 * means the event is already stored, and it is skipped whole), then the further decisions of the
 * events just stored.
 */
export async function insertBatch(
  tx: SqlTx,
  events: ParsedAuditEvent[],
  dialect: Dialect,
  names: NameIds,
): Promise<IngestResult> {
  const stored = events.filter((e) => e.decisions.length > 0);
  const firsts = await withNameIds(tx, names, (id) =>
    stored.map((e) => decisionRow(e, e.decisions[0] as DecisionCall, 0, null, id)),
  );
  const firstIds = await tx.insert({
    table: TABLE,
    columns: INSERT_COLUMNS,
    conflict: UNIQUE_KEY,
    rows: firsts,
  });
  const ids: number[] = [];
  const withText: ParsedAuditEvent[] = [];
  const decisions: DecisionRecord[] = [];
  let later = false;
  for (let i = 0; i < stored.length; i++) {
    const id = firstIds[i];
    if (id === undefined) continue;
    const e = stored[i] as ParsedAuditEvent;
    ids.push(id);
    withText.push(e);
    decisions.push(record(e, e.decisions[0] as DecisionCall, id));
    if (e.decisions.length > 1) later = true;
  }
  const more = later
    ? await withNameIds(tx, names, (name) => {
        const rows: SqlValue[][] = [];
        withText.forEach((e, i) => {
          for (let k = 1; k < e.decisions.length; k++)
            rows.push(decisionRow(e, e.decisions[k] as DecisionCall, k, ids[i] as number, name));
        });
        return rows;
      })
    : [];
  await tx.insert({
    table: EVENTS,
    columns: EVENT_COLUMNS,
    conflict: ["id"],
    rows: packedTextRows(ids, withText).map(([id, packed]) => [id, "", packed]),
  });
  if (more.length > 0) {
    // Later decisions were inserted after every first one: their ids follow, in this order.
    const moreIds = await tx.insert({
      table: TABLE,
      columns: INSERT_COLUMNS,
      conflict: UNIQUE_KEY,
      rows: more,
    });
    let m = 0;
    for (let i = 0; i < stored.length; i++) {
      if (firstIds[i] === undefined) continue;
      const e = stored[i] as ParsedAuditEvent;
      for (let k = 1; k < e.decisions.length; k++)
        decisions.push(record(e, e.decisions[k] as DecisionCall, moreIds[m++] ?? 0));
    }
    // Ids in storing order, as a live stream's cursor expects.
    decisions.sort((x, y) => x.id - y.id);
  }
  if (spansServeHooks(dialect)) await insertSpans(tx, decisions);
  return { stored: ids.length, duplicates: events.length - ids.length, decisions };
}

/** Saves where an audit log follower stands (see LogCursor). */
export async function saveCursor(tx: SqlTx, c: LogCursor): Promise<void> {
  await tx.query(
    sql`INSERT INTO audit_log_cursor (name, dev, ino, pos) VALUES (${c.name}, ${c.dev}, ${c.ino}, ${c.offset}) ON CONFLICT (name) DO UPDATE SET dev = excluded.dev, ino = excluded.ino, pos = excluded.pos`,
  );
}
