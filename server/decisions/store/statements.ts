/**
 * The statements that read decisions, shared by SQLite and PostgreSQL, and the records their rows
 * become (each with its event's text, read once per admission_events row).
 */
import "server-only";
import {
  parseStoredEvent,
  requestFactsOfEvent,
  type AuditRequestFacts,
  type DecisionOutcome,
  type DecisionRecord,
  type DeciderKind,
} from "@/lib/admission/audit/audit";
import { deciderKinds, phaseKinds, type DecisionFilter } from "@/lib/decisions/filter";
import { joinSql, sql, type Sql } from "../sql";
import { nameOf, namedIn, namedIs } from "./names";
import { rowTexts } from "./packing";
import { EVENTS, SPANS, TABLE, spansServeHooks, type Dialect } from "./schema";
import type { DecisionDetail } from "./types";

export interface DecisionRow {
  id: number | string;
  time: number | string;
  kind: string;
  hook: string;
  configuration: string;
  outcome: string;
  code: number | null;
  message: string;
  patch: string | null;
  round: number | null;
  idx: number | null;
  audit_id: string;
  stage: string;
  namespace: string;
  user_name: string;
  resource: string;
  operation: string;
  event_id: number | string | null;
  /** The admission_events row holding the event's text (see rowTexts). */
  raw_id: number | string | null;
}

/**
 * Each decision with the id of the admission_events row holding its event's text; the rows
 * themselves are read once per query however many of its decisions share them.
 */
const DECISION_COLUMNS = `SELECT d.id, d.time, ${nameOf("d.kind")} AS kind, ${nameOf("d.hook")} AS hook, ${nameOf("d.configuration")} AS configuration, ${nameOf("d.outcome")} AS outcome, d.code, d.message, d.patch, d.round, d.idx, d.audit_id, ${nameOf("d.stage")} AS stage, ${nameOf("d.namespace")} AS namespace, ${nameOf("d.user_name")} AS user_name, ${nameOf("d.resource")} AS resource, ${nameOf("d.operation")} AS operation, d.event_id, (SELECT MAX(x.id) FROM ${EVENTS} x WHERE x.id <= COALESCE(d.event_id, d.id)) AS raw_id`;
const SELECT_DECISIONS = `${DECISION_COLUMNS} FROM ${TABLE} d`;
/** What locates a decision's event: a replay reads everything else from the event. */
const REQUEST_COLUMNS = `SELECT d.id, d.time, d.audit_id, d.event_id, (SELECT MAX(x.id) FROM ${EVENTS} x WHERE x.id <= COALESCE(d.event_id, d.id)) AS raw_id`;

/** Most admission_events rows read by one statement. */
const TEXT_ROWS_PER_READ = 500;

/** The id of the decision that stands for a decision row's event (its first). */
const eventIdOf = (r: Pick<DecisionRow, "id" | "event_id">) => Number(r.event_id ?? r.id);

/** The request facts, read back from the stored event (the filter columns if it is unreadable). */
function requestOf(r: DecisionRow, event: unknown): AuditRequestFacts {
  const facts = event !== undefined ? requestFactsOfEvent(event) : undefined;
  return (
    facts ?? {
      user: r.user_name,
      groups: [],
      verb: "",
      operation: r.operation as AuditRequestFacts["operation"],
      requestURI: "",
      group: "",
      version: "",
      resource: r.resource,
      subresource: "",
      namespace: r.namespace,
      name: "",
      dryRun: false,
      latencies: {},
    }
  );
}

function toRecord(r: DecisionRow, event: unknown): DecisionRecord {
  const rec: DecisionRecord = {
    id: Number(r.id),
    auditID: r.audit_id,
    stage: r.stage,
    time: Number(r.time),
    kind: r.kind as DeciderKind,
    hook: r.hook,
    configuration: r.configuration,
    outcome: r.outcome as DecisionOutcome,
    message: r.message,
    request: requestOf(r, event),
  };
  if (r.code !== null) rec.code = Number(r.code);
  if (r.patch !== null) rec.patch = r.patch;
  if (r.round !== null) rec.round = Number(r.round);
  if (r.idx !== null) rec.index = Number(r.idx);
  return rec;
}

/** Reads statements (the feed's: see SqlDriver.read). */
export type Read = <R>(q: Sql) => Promise<R[]>;

/**
 * The texts of the decision rows' events, by the id of each event's first decision: every
 * admission_events row they are in is read once.
 */
async function texts(
  read: Read,
  rows: ReadonlyArray<Pick<DecisionRow, "id" | "event_id" | "raw_id">>,
): Promise<Map<number, string>> {
  const wanted = new Map<number, Set<number>>();
  for (const r of rows) {
    if (r.raw_id === null) continue;
    const rowId = Number(r.raw_id);
    let offsets = wanted.get(rowId);
    if (!offsets) wanted.set(rowId, (offsets = new Set()));
    offsets.add(eventIdOf(r) - rowId);
  }
  const ids = [...wanted.keys()];
  const out = new Map<number, string>();
  for (let i = 0; i < ids.length; i += TEXT_ROWS_PER_READ) {
    const part = ids.slice(i, i + TEXT_ROWS_PER_READ);
    const got = await read<{ id: number | string; packed: Uint8Array | null }>({
      text: `SELECT id, packed FROM ${EVENTS} WHERE id IN (${part.map(() => "?").join(", ")})`,
      params: part,
    });
    for (const t of got) {
      const rowId = Number(t.id);
      if (t.packed === null) continue;
      for (const [k, text] of rowTexts(t.packed, wanted.get(rowId) ?? new Set()))
        out.set(rowId + k, text);
    }
  }
  return out;
}

/** The decisions of rows read by a statement below, each with its event's request facts. */
export async function recordsOf(read: Read, rows: DecisionRow[]): Promise<DecisionRecord[]> {
  const byEvent = await texts(read, rows);
  return rows.map((r) => {
    const raw = byEvent.get(eventIdOf(r));
    return toRecord(r, raw !== undefined ? parseStoredEvent(raw) : undefined);
  });
}

/** What a replay reads of a decision row: where its event is, nothing else (see requestsStatement). */
export type RequestRow = Pick<DecisionRow, "id" | "time" | "audit_id" | "event_id" | "raw_id">;

/** A decision's event, parsed, and the request facts read from it (undefined: unreadable). */
export interface RequestWithEvent {
  id: number;
  time: number;
  auditID: string;
  request: AuditRequestFacts | undefined;
  rawEvent: string | undefined;
  event: unknown;
}

/**
 * The requests of rows read by requestsStatement, each event's text read and parsed once
 * however many of the rows name it: the requests a replay predicts again (lib/replay).
 */
export async function requestsWithEvents(
  read: Read,
  rows: RequestRow[],
): Promise<RequestWithEvent[]> {
  const byEvent = await texts(read, rows);
  const parsed = new Map<number, { event: unknown; request: AuditRequestFacts | undefined }>();
  return rows.map((r) => {
    const at = eventIdOf(r);
    const raw = byEvent.get(at);
    let p = parsed.get(at);
    if (!p) {
      const event = raw !== undefined ? parseStoredEvent(raw) : undefined;
      p = { event, request: event !== undefined ? requestFactsOfEvent(event) : undefined };
      parsed.set(at, p);
    }
    return {
      id: Number(r.id),
      time: Number(r.time),
      auditID: r.audit_id,
      request: p.request,
      rawEvent: raw,
      event: p.event,
    };
  });
}

export async function detailOf(read: Read, row: DecisionRow): Promise<DecisionDetail> {
  const raw = (await texts(read, [row])).get(eventIdOf(row));
  return {
    decision: toRecord(row, raw !== undefined ? parseStoredEvent(raw) : undefined),
    rawEvent: raw ?? "",
  };
}

/** The hook or policy a filter narrows to, when its decisions are read through its spans. */
function spannedHook(f: DecisionFilter, dialect: Dialect): string | undefined {
  return spansServeHooks(dialect) ? (f.hook ?? f.policy) : undefined;
}

/**
 * The rows a filter reads: for a hook or policy, its spans joined to the decisions each covers
 * (a CROSS JOIN, so the spans drive and each is an id range of the decisions), else every row.
 */
function source(f: DecisionFilter, dialect: Dialect): Sql {
  return {
    text:
      spannedHook(f, dialect) === undefined
        ? ` FROM ${TABLE} d`
        : ` FROM ${SPANS} s CROSS JOIN ${TABLE} d`,
    params: [],
  };
}

/** Ordered by id; through a hook's spans, span by span (they ascend and never overlap). */
function byId(f: DecisionFilter, dialect: Dialect, dir: "ASC" | "DESC"): Sql {
  return {
    text:
      spannedHook(f, dialect) === undefined
        ? ` ORDER BY d.id ${dir}`
        : ` ORDER BY s.first_id ${dir}, d.id ${dir}`,
    params: [],
  };
}

/**
 * The WHERE clause of a filter over its source (always valid: `1 = 1` when empty), optionally
 * only ids below or above a cursor.
 */
function where(
  f: DecisionFilter,
  dialect: Dialect,
  ids: { below?: number; above?: number } = {},
): Sql {
  const parts: Sql[] = [sql`1 = 1`];
  const hook = spannedHook(f, dialect);
  if (hook !== undefined) {
    parts.push(sql`s.hook = ${hook} AND d.id >= s.first_id AND d.id <= s.last_id`);
    // The spans' own bounds rule out whole spans before their rows are read.
    if (ids.below !== undefined) parts.push(sql`s.first_id < ${ids.below}`);
    if (ids.above !== undefined) parts.push(sql`s.last_id > ${ids.above}`);
    if (f.from !== undefined) parts.push(sql`s.max_time >= ${f.from}`);
    if (f.to !== undefined) parts.push(sql`s.min_time < ${f.to}`);
  }
  if (ids.below !== undefined) parts.push(sql`d.id < ${ids.below}`);
  if (ids.above !== undefined) parts.push(sql`d.id > ${ids.above}`);
  if (f.hook !== undefined)
    parts.push(namedIs("d.hook", f.hook), namedIn("d.kind", deciderKinds.webhook));
  if (f.policy !== undefined)
    parts.push(namedIs("d.hook", f.policy), namedIn("d.kind", deciderKinds.policy));
  if (f.outcome.length > 0) parts.push(namedIn("d.outcome", f.outcome));
  if (f.namespace !== undefined) parts.push(namedIs("d.namespace", f.namespace));
  if (f.user !== undefined) parts.push(namedIs("d.user_name", f.user));
  if (f.resource !== undefined) parts.push(namedIs("d.resource", f.resource));
  if (f.operation !== undefined) parts.push(namedIs("d.operation", f.operation));
  if (f.auditID !== undefined) parts.push(sql`d.audit_id = ${f.auditID}`);
  if (f.phase !== undefined) parts.push(namedIn("d.kind", phaseKinds(f)));
  if (f.configuration !== undefined) parts.push(namedIn("d.configuration", [f.configuration, ""]));
  if (f.from !== undefined) parts.push(sql`d.time >= ${f.from}`);
  if (f.to !== undefined) parts.push(sql`d.time < ${f.to}`);
  const w = joinSql(parts, " AND ");
  return { text: ` WHERE ${w.text}`, params: w.params };
}

/** Statements joined one after the other. */
export function concat(...parts: Sql[]): Sql {
  return joinSql(parts, "");
}

/** The statement of DecisionStore.list (exported for query plan tests). */
export function listStatement(
  f: DecisionFilter,
  opts: { limit: number; before?: number },
  dialect: Dialect,
): Sql {
  return concat(
    { text: DECISION_COLUMNS, params: [] },
    source(f, dialect),
    where(f, dialect, { below: opts.before }),
    byId(f, dialect, "DESC"),
    sql` LIMIT ${opts.limit}`,
  );
}

/**
 * The statement of DecisionStore.listRequests: listStatement's rows with only what locates each
 * one's event (no name looked up per column: a replay reads the request from the event).
 */
export function requestsStatement(f: DecisionFilter, limit: number, dialect: Dialect): Sql {
  return concat(
    { text: REQUEST_COLUMNS, params: [] },
    source(f, dialect),
    where(f, dialect),
    byId(f, dialect, "DESC"),
    sql` LIMIT ${limit}`,
  );
}

/** The statement of DecisionStore.after: decisions above the id `after`, oldest first. */
export function afterStatement(
  f: DecisionFilter,
  after: number,
  limit: number,
  dialect: Dialect,
): Sql {
  return concat(
    { text: DECISION_COLUMNS, params: [] },
    source(f, dialect),
    where(f, dialect, { above: after }),
    byId(f, dialect, "ASC"),
    sql` LIMIT ${limit}`,
  );
}

/** Decisions with ids in [from, to], oldest first, at most `limit`. */
export function rangeStatement(from: number, to: number, limit: number): Sql {
  return concat(
    { text: SELECT_DECISIONS, params: [] },
    sql` WHERE d.id >= ${from} AND d.id <= ${to} ORDER BY d.id ASC LIMIT ${limit}`,
  );
}

/** The decision with this id. */
export function detailStatement(id: number): Sql {
  return concat({ text: SELECT_DECISIONS, params: [] }, sql` WHERE d.id = ${id}`);
}

/** The statement of DecisionStore.histogram (exported for query plan tests). */
export function histogramStatement(f: DecisionFilter, bucketMs: number, dialect: Dialect): Sql {
  return concat(
    { text: `SELECT g.bucket, ${nameOf("g.outcome")} AS outcome, g.n FROM (`, params: [] },
    sql`SELECT CAST(d.time / ${bucketMs} AS BIGINT) AS bucket, d.outcome AS outcome, COUNT(*) AS n`,
    source(f, dialect),
    where(f, dialect),
    { text: " GROUP BY 1, 2) g ORDER BY 1", params: [] },
  );
}

/**
 * The statement of DecisionStore.tally (exported for query plan tests): the filter's decisions
 * counted by decider and outcome, the largest counts first, at most `limit` of them.
 */
export function tallyStatement(f: DecisionFilter, limit: number, dialect: Dialect): Sql {
  return concat(
    {
      text: `SELECT ${nameOf("g.kind")} AS kind, ${nameOf("g.hook")} AS hook, ${nameOf("g.outcome")} AS outcome, g.n, g.last FROM (SELECT d.kind AS kind, d.hook AS hook, d.outcome AS outcome, COUNT(*) AS n, MAX(d.time) AS last`,
      params: [],
    },
    source(f, dialect),
    where(f, dialect),
    sql` GROUP BY d.kind, d.hook, d.outcome) g ORDER BY 4 DESC, 2 ASC LIMIT ${limit}`,
  );
}

/**
 * The statement of DecisionStore.sightings: the filter's decisions counted by decider, hook,
 * configuration and outcome, with the first and last time of each (what is known of a hook no API
 * object holds: lib/admission/outside-api). Groups are few (one per hook and outcome); the window's
 * decisions are all read.
 */
export function sightingsStatement(f: DecisionFilter, dialect: Dialect): Sql {
  return concat(
    {
      text: `SELECT ${nameOf("g.kind")} AS kind, ${nameOf("g.hook")} AS hook, ${nameOf("g.configuration")} AS configuration, ${nameOf("g.outcome")} AS outcome, g.n, g.first, g.last FROM (SELECT d.kind AS kind, d.hook AS hook, d.configuration AS configuration, d.outcome AS outcome, COUNT(*) AS n, MIN(d.time) AS first, MAX(d.time) AS last`,
      params: [],
    },
    source(f, dialect),
    where(f, dialect),
    sql` GROUP BY d.kind, d.hook, d.configuration, d.outcome) g`,
  );
}
