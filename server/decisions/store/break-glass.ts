/**
 * Break-glass episodes beside the decisions, in the same database (SQLite or PostgreSQL): what
 * was let through, until when, and how it ended. One row per episode. The revert of an episode is
 * claimed by a conditional UPDATE … RETURNING — only one process (of the replicas sharing
 * PostgreSQL) gets the row, and a claim not finished within its lease (the claimer died) can be
 * taken again — so the revert runs once. Kept in its own module and table: the decision store's
 * schema check (schema.ts) does not know it.
 */
import "server-only";
import type { BreakGlassRecord } from "@/lib/admission/break-glass/record";
import { parseRecord, formatRecord } from "@/lib/admission/break-glass/record";
import { sql, type SqlDriver } from "../sql";

const BREAK_GLASS_TABLE = "break_glass_episodes";

/**
 * `active`: writes are let through; `reverting`: claimed by a process until `claim_until`;
 * `reverted`: ended, every field restored; `kept`: ended, but fields someone changed meanwhile
 * were left as they are and wait for an answer (restore anyway, or keep); `closed`: answered.
 */
type EpisodeState = "active" | "reverting" | "reverted" | "kept" | "closed";

export interface EpisodeRow {
  readonly record: BreakGlassRecord;
  /** The kubeconfig context (local mode) or the shared context it was written in. */
  readonly context: string;
  readonly state: EpisodeState;
  /** JSON of how it ended (server/break-glass), when it has. */
  readonly outcome?: string;
  readonly endedAt?: number;
  /** Reverts begun (each after a claim): 1 for an episode reverted once. */
  readonly attempts: number;
}

interface Row {
  id: string;
  context: string;
  record: string;
  state: string;
  outcome: string | null;
  ended_at: number | string | null;
  attempts: number | string;
}

function schema(): string {
  return `
CREATE TABLE IF NOT EXISTS ${BREAK_GLASS_TABLE} (
  id TEXT PRIMARY KEY,
  context TEXT NOT NULL,
  resource TEXT NOT NULL,
  name TEXT NOT NULL,
  record TEXT NOT NULL,
  expires_at BIGINT NOT NULL,
  state TEXT NOT NULL,
  claim_owner TEXT,
  claim_until BIGINT,
  outcome TEXT,
  ended_at BIGINT,
  attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS ${BREAK_GLASS_TABLE}_state ON ${BREAK_GLASS_TABLE} (state, expires_at);`;
}

function toRow(r: Row): EpisodeRow | undefined {
  const record = parseRecord(r.record);
  if (!record) return undefined;
  return {
    record,
    context: r.context,
    state: r.state as EpisodeState,
    ...(r.outcome !== null ? { outcome: r.outcome } : {}),
    ...(r.ended_at !== null ? { endedAt: Number(r.ended_at) } : {}),
    attempts: Number(r.attempts),
  };
}

const COLUMNS = "id, context, record, state, outcome, ended_at, attempts";

export class BreakGlassStore {
  constructor(private readonly driver: SqlDriver) {}

  /** Creates the table when missing. */
  async migrate(): Promise<void> {
    await this.driver.exec(schema());
  }

  /**
   * Records an episode; one already stored under its id is left as it is (an episode read back
   * from a configuration's annotation is adopted once). True when this call stored it.
   */
  async insert(record: BreakGlassRecord, context: string): Promise<boolean> {
    const rows = await this.driver.query<{ id: string }>(
      sql`INSERT INTO break_glass_episodes (id, context, resource, name, record, expires_at, state) VALUES (${record.id}, ${context}, ${record.resource}, ${record.name}, ${formatRecord(record)}, ${record.expiresAt}, 'active') ON CONFLICT (id) DO NOTHING RETURNING id`,
    );
    return rows.length > 0;
  }

  async get(id: string): Promise<EpisodeRow | undefined> {
    const rows = await this.driver.query<Row>(
      sql`SELECT id, context, record, state, outcome, ended_at, attempts FROM break_glass_episodes WHERE id = ${id}`,
    );
    return rows[0] ? toRow(rows[0]) : undefined;
  }

  /** Episodes not yet ended, and those ended with fields kept that wait for an answer. */
  async open(): Promise<EpisodeRow[]> {
    const rows = await this.driver.query<Row>({
      text: `SELECT ${COLUMNS} FROM ${BREAK_GLASS_TABLE} WHERE state IN ('active', 'reverting', 'kept') ORDER BY expires_at`,
      params: [],
    });
    return rows.map(toRow).filter((r): r is EpisodeRow => r !== undefined);
  }

  /** The latest ended episodes, newest first. */
  async ended(limit: number): Promise<EpisodeRow[]> {
    const rows = await this.driver.query<Row>(
      sql`SELECT id, context, record, state, outcome, ended_at, attempts FROM break_glass_episodes WHERE state IN ('reverted', 'closed') ORDER BY ended_at DESC LIMIT ${limit}`,
    );
    return rows.map(toRow).filter((r): r is EpisodeRow => r !== undefined);
  }

  /**
   * Claims the revert of an episode for `owner` until `now + leaseMs`: only when it is active —
   * and, unless `early`, past its expiry — or when another claim ran out (its claimer died). The
   * one UPDATE decides between replicas: true for exactly one of them.
   *
   * The expiry is wall-clock time (the apiserver's annotation records it so). On PostgreSQL the
   * time a claim is judged by is the earlier of `now` (this process's clock) and the database
   * server's: a replica whose clock jumped forward neither reverts before the expiry as the
   * other replicas see it nor takes over a claim whose lease still runs.
   */
  async claim(
    id: string,
    owner: string,
    now: number,
    leaseMs: number,
    early = false,
  ): Promise<boolean> {
    if (this.driver.dialect === "postgres") {
      const rows = await this.driver.query<{ id: string }>(
        sql`WITH t AS (SELECT LEAST(${now}::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) AS now) UPDATE break_glass_episodes SET state = 'reverting', claim_owner = ${owner}, claim_until = (SELECT now FROM t) + ${leaseMs} WHERE id = ${id} AND (${early ? 1 : 0} = 1 OR expires_at <= (SELECT now FROM t)) AND (state = 'active' OR (state = 'reverting' AND claim_until < (SELECT now FROM t))) RETURNING id`,
      );
      return rows.length > 0;
    }
    const until = now + leaseMs;
    const expiry = early ? Number.MAX_SAFE_INTEGER : now;
    const rows = await this.driver.query<{ id: string }>(
      sql`UPDATE break_glass_episodes SET state = 'reverting', claim_owner = ${owner}, claim_until = ${until} WHERE id = ${id} AND expires_at <= ${expiry} AND (state = 'active' OR (state = 'reverting' AND claim_until < ${now})) RETURNING id`,
    );
    return rows.length > 0;
  }

  /**
   * Counts a revert begun (by the process that won its claim): an episode reverted once reads 1,
   * whatever number of processes raced for it.
   */
  async begin(id: string): Promise<void> {
    await this.driver.query(
      sql`UPDATE break_glass_episodes SET attempts = attempts + 1 WHERE id = ${id}`,
    );
  }

  /** Ends a claimed revert: only the claim's owner can. */
  async finish(
    id: string,
    owner: string,
    state: "reverted" | "kept",
    outcome: string,
    now: number,
  ): Promise<boolean> {
    const rows = await this.driver.query<{ id: string }>(
      sql`UPDATE break_glass_episodes SET state = ${state}, outcome = ${outcome}, ended_at = ${now}, claim_owner = NULL, claim_until = NULL WHERE id = ${id} AND claim_owner = ${owner} AND state = 'reverting' RETURNING id`,
    );
    return rows.length > 0;
  }

  /** Gives a claim back (the revert failed: the next attempt retries it). */
  async release(id: string, owner: string, outcome: string): Promise<void> {
    await this.driver.query(
      sql`UPDATE break_glass_episodes SET state = 'active', outcome = ${outcome}, claim_owner = NULL, claim_until = NULL WHERE id = ${id} AND claim_owner = ${owner} AND state = 'reverting'`,
    );
  }

  /** Answers a `kept` episode (restored anyway, or kept as it is): it is closed. */
  async close(id: string, outcome: string, now: number): Promise<boolean> {
    const rows = await this.driver.query<{ id: string }>(
      sql`UPDATE break_glass_episodes SET state = 'closed', outcome = ${outcome}, ended_at = ${now} WHERE id = ${id} AND state = 'kept' RETURNING id`,
    );
    return rows.length > 0;
  }
}
