/**
 * The decision store: the typed query layer over SQLite or PostgreSQL, with group commit. Its
 * parts: schema.ts (tables and their check), names.ts (each name stored once), packing.ts (the
 * events' texts), batch.ts (storing a batch), statements.ts (reading decisions), notices.ts
 * (replicas sharing PostgreSQL) and pruning.ts (retention); types.ts holds what callers use.
 */
import "server-only";
import { randomUUID } from "node:crypto";
import type {
  DecisionOutcome,
  DecisionRecord,
  DeciderKind,
  ParsedAuditEvent,
} from "@/lib/admission/audit/audit";
import type { DecisionFilter } from "@/lib/decisions/filter";
import type { DecisionTally } from "@/lib/decisions/tally";
import type { DecisionSighting } from "@/lib/admission/outside-api/infer";
import { sql, type Listening, type Sql, type SqlDriver } from "../sql";
import { insertBatch, saveCursor } from "./batch";
import { NameIds, namedIs } from "./names";
import { MAX_NOTICE_ROWS, notifyOthers, watchOthers } from "./notices";
import { PRUNE_CHUNK, pruneInChunks } from "./pruning";
import { createSchema } from "./schema";
import {
  afterStatement,
  concat,
  detailOf,
  detailStatement,
  histogramStatement,
  listStatement,
  rangeStatement,
  recordsOf,
  requestsStatement,
  requestsWithEvents,
  sightingsStatement,
  tallyStatement,
  type DecisionRow,
  type RequestRow,
  type RequestWithEvent,
} from "./statements";
import type { DecisionBucket, DecisionDetail, IngestResult, LogCursor, Retention } from "./types";

/** Most batches stored in one group commit. */
const MAX_GROUP = 32;

/**
 * The typed query layer over SQLite or PostgreSQL: the same statements run on both. Events are
 * stored once per (auditID, stage); each holds the decisions parsed from it.
 */
export class DecisionStore {
  private readonly pending: Array<{
    events: ParsedAuditEvent[];
    cursor?: LogCursor;
    resolve: (r: IngestResult) => void;
    reject: (e: unknown) => void;
  }> = [];
  private flushing = false;
  /** The ids of the names stored, as far as this process has met them. */
  private readonly names = new NameIds();
  /** Names this process in the notices it sends other replicas sharing a PostgreSQL database. */
  private readonly origin = randomUUID();

  constructor(
    readonly driver: SqlDriver,
    readonly retention: Retention,
  ) {}

  /** The feed's reads: off the writer's connection where the driver can (see SqlDriver.read). */
  private readonly read = <R>(q: Sql): Promise<R[]> =>
    this.driver.read ? this.driver.read<R>(q) : this.driver.query<R>(q);

  /**
   * Creates the tables when missing. A database another version wrote (or one of a schema no
   * release had) is refused with an error naming the table (see createSchema).
   */
  async migrate(): Promise<void> {
    await createSchema(this.driver);
  }

  /**
   * Stores a batch durably: all of it or nothing, resolved once committed. Events already stored
   * are skipped, so a batch the apiserver retries after a failure or a crash is never counted
   * twice.
   */
  ingest(events: ParsedAuditEvent[], cursor?: LogCursor): Promise<IngestResult> {
    if (events.length === 0 && !cursor)
      return Promise.resolve({ stored: 0, duplicates: 0, decisions: [] });
    return new Promise((resolve, reject) => {
      this.pending.push({ events, cursor, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        // Let batches already received in this turn of the event loop join the same commit.
        setImmediate(() => void this.flush());
      }
    });
  }

  /**
   * Group commit: batches that arrive while a commit is in progress are stored together in the
   * next transaction (one fsync for all), each answered with its own result; if the transaction
   * fails, every batch in it fails and none of it is stored.
   */
  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const group = this.pending.splice(0, MAX_GROUP);
      try {
        const results = await this.driver.transaction(async (tx) => {
          const out: IngestResult[] = [];
          for (const g of group) {
            out.push(
              g.events.length > 0
                ? await insertBatch(tx, g.events, this.driver.dialect, this.names)
                : { stored: 0, duplicates: 0, decisions: [] },
            );
            if (g.cursor) await saveCursor(tx, g.cursor);
          }
          if (this.driver.listen) await notifyOthers(tx, this.origin, out);
          return out;
        });
        this.names.settle(true);
        group.forEach((g, i) =>
          g.resolve(results[i] ?? { stored: 0, duplicates: 0, decisions: [] }),
        );
      } catch (e) {
        this.names.settle(false);
        for (const g of group) g.reject(e);
      }
    }
    this.flushing = false;
  }

  /**
   * Where several processes share the database (PostgreSQL): calls `deliver` with the decisions
   * the others store, as they commit them, so every replica's live feed shows every decision
   * whichever replica the apiserver sent it to. After a lost listening connection it reads what
   * was stored since the newest id it had seen. A notice's id range may include rows of other
   * transactions (ids interleave): `deliver` gets those too and must drop repeats. Returns the
   * listening handle, or undefined where the database has no notices (SQLite: one process).
   */
  watchOthers(deliver: (decisions: DecisionRecord[]) => void): Listening | undefined {
    return watchOthers(
      this.driver,
      this.origin,
      {
        range: (from, to) => this.range(from, to),
        after: (id, limit) => this.after({ outcome: [] }, id, limit),
      },
      deliver,
    );
  }

  /** Decisions with ids in [from, to], oldest first. */
  async range(from: number, to: number): Promise<DecisionRecord[]> {
    const rows = await this.driver.query<DecisionRow>(rangeStatement(from, to, MAX_NOTICE_ROWS));
    return recordsOf(this.read, rows);
  }

  /** Where the follower of the named audit log stopped, if it ever stored anything. */
  async cursor(name: string): Promise<LogCursor | undefined> {
    const [row] = await this.driver.query<{ dev: string; ino: string; pos: number | string }>(
      sql`SELECT dev, ino, pos FROM audit_log_cursor WHERE name = ${name}`,
    );
    return row ? { name, dev: row.dev, ino: row.ino, offset: Number(row.pos) } : undefined;
  }

  /** Newest first, optionally only those older than `before` (an id). */
  async list(
    f: DecisionFilter,
    opts: { limit: number; before?: number },
  ): Promise<DecisionRecord[]> {
    return recordsOf(
      this.read,
      await this.read<DecisionRow>(listStatement(f, opts, this.driver.dialect)),
    );
  }

  /**
   * Newest first, each decision's request with its event's (redacted) text and the event parsed:
   * the requests a replay predicts again (lib/replay). Only what locates the events is read from
   * the decision rows; texts are read a packed row at a time, as for the feed.
   */
  async listRequests(f: DecisionFilter, limit: number): Promise<RequestWithEvent[]> {
    return requestsWithEvents(
      this.read,
      await this.read<RequestRow>(requestsStatement(f, limit, this.driver.dialect)),
    );
  }

  /** Oldest first: decisions stored after the given id (a stream catching up after a reconnect). */
  async after(f: DecisionFilter, id: number, limit: number): Promise<DecisionRecord[]> {
    const rows = await this.read<DecisionRow>(afterStatement(f, id, limit, this.driver.dialect));
    return recordsOf(this.read, rows);
  }

  /** One decision and its (redacted) audit event as JSON text. */
  async detail(id: number): Promise<DecisionDetail | undefined> {
    const [row] = await this.read<DecisionRow>(detailStatement(id));
    return row ? detailOf(this.read, row) : undefined;
  }

  /** Counts by outcome in buckets of `bucketMs` within [from, to). */
  async histogram(f: DecisionFilter, bucketMs: number): Promise<DecisionBucket[]> {
    const rows = await this.read<{
      bucket: number | string;
      outcome: string;
      n: number | string;
    }>(histogramStatement(f, bucketMs, this.driver.dialect));
    const buckets = new Map<number, DecisionBucket>();
    for (const r of rows) {
      const start = Number(r.bucket) * bucketMs;
      let b = buckets.get(start);
      if (!b) {
        b = { start, counts: {} };
        buckets.set(start, b);
      }
      b.counts[r.outcome as DecisionOutcome] = Number(r.n);
    }
    return [...buckets.values()];
  }

  /**
   * The filter's decisions counted by decider and outcome (give it a time range: every decision
   * in it is read), the largest counts first, at most `limit` pairs.
   */
  async tally(f: DecisionFilter, limit: number): Promise<DecisionTally[]> {
    const rows = await this.read<{
      kind: string;
      hook: string;
      outcome: string;
      n: number | string;
      last: number | string;
    }>(tallyStatement(f, limit, this.driver.dialect));
    return rows.map((r) => ({
      kind: r.kind as DeciderKind,
      hook: r.hook,
      outcome: r.outcome as DecisionOutcome,
      count: Number(r.n),
      last: Number(r.last),
    }));
  }

  /**
   * The filter's decisions counted by decider, hook and configuration (give it a time range: every
   * decision in it is read), with their errors (error, timeout, failed-open) and first and last time.
   */
  async sightings(f: DecisionFilter): Promise<DecisionSighting[]> {
    const rows = await this.read<{
      kind: string;
      hook: string;
      configuration: string;
      outcome: string;
      n: number | string;
      first: number | string;
      last: number | string;
    }>(sightingsStatement(f, this.driver.dialect));
    const out = new Map<string, DecisionSighting>();
    for (const r of rows) {
      const k = JSON.stringify([r.kind, r.hook, r.configuration]);
      const n = Number(r.n);
      const failed =
        r.outcome === "error" || r.outcome === "timeout" || r.outcome === "failed-open";
      const was = out.get(k);
      out.set(k, {
        kind: r.kind as DeciderKind,
        hook: r.hook,
        configuration: r.configuration,
        calls: (was?.calls ?? 0) + n,
        errors: (was?.errors ?? 0) + (failed ? n : 0),
        first: Math.min(was?.first ?? Infinity, Number(r.first)),
        last: Math.max(was?.last ?? -Infinity, Number(r.last)),
      });
    }
    return [...out.values()];
  }

  /** Total stored events and decisions. */
  async counts(): Promise<{ events: number; decisions: number }> {
    const [row] = await this.read<{ events: number | string; decisions: number | string }>(
      sql`SELECT (SELECT COUNT(*) FROM admission_calls WHERE seq = 0) AS events, (SELECT COUNT(*) FROM admission_calls) AS decisions`,
    );
    return { events: Number(row?.events ?? 0), decisions: Number(row?.decisions ?? 0) };
  }

  /** Whether an event with this (auditID, stage) is stored. */
  async hasEvent(auditID: string, stage: string): Promise<boolean> {
    const rows = await this.driver.query(
      concat(
        sql`SELECT id FROM admission_calls WHERE audit_id = ${auditID} AND seq = 0 AND `,
        namedIs("stage", stage),
      ),
    );
    return rows.length > 0;
  }

  /**
   * Applies retention: deletes the decisions (and their events) older than the age limit, then
   * the oldest beyond the row limit, events whole. Returns how many decisions were deleted.
   * It deletes about `chunk` rows a transaction (with the later decisions of the events they
   * begin) and lets the event loop turn between them: a transaction holds the writer (on SQLite,
   * the whole process) while it runs, and cutting a million decisions at once held it for over a
   * second, the audit sink unanswered meanwhile. Every transaction leaves whole events, so readers
   * never see half of one. A prune asked for while one runs joins it.
   */
  prune(now = Date.now(), chunk = PRUNE_CHUNK): Promise<number> {
    this.pruning ??= pruneInChunks(
      this.driver,
      this.read,
      this.retention,
      now,
      Math.max(1, chunk),
    ).finally(() => {
      this.pruning = undefined;
    });
    return this.pruning;
  }

  private pruning?: Promise<number>;
}
