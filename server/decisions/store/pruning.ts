/**
 * Retention: deleting the decisions older than the age limit, then the oldest beyond the row
 * limit, whole events at a time, a chunk a transaction.
 */
import "server-only";
import { sql, type Sql, type SqlDriver, type SqlTx } from "../sql";
import { spansServeHooks, type Dialect } from "./schema";
import { concat, type Read } from "./statements";
import type { Retention } from "./types";

/**
 * Deletes the admission_events rows with ids up to `upTo` that hold no stored event's text any
 * more (a row holds the texts of the events with ids from its own up to the next row's; `newest`
 * is the newest decision id).
 */
async function dropEventTexts(tx: SqlTx, upTo: number, newest: number): Promise<void> {
  await tx.query(
    sql`DELETE FROM admission_events WHERE id <= ${upTo} AND NOT EXISTS (SELECT 1 FROM admission_calls d WHERE d.seq = 0 AND d.id >= admission_events.id AND d.id < COALESCE((SELECT MIN(n.id) FROM admission_events n WHERE n.id > admission_events.id), ${newest + 1}))`,
  );
}

/** About how many rows one transaction of retention deletes (see DecisionStore.prune). */
export const PRUNE_CHUNK = 10_000;

/** What one transaction of retention did, and whether there is more to delete. */
interface PruneStep {
  deleted: number;
  more: boolean;
}

const countOf = async (tx: SqlTx, q: Sql) =>
  Number((await tx.query<{ n: number | string }>(q))[0]?.n ?? 0);

/** The newest decision and its event's first: they always stay, so a stream's cursor holds. */
async function newestRow(tx: SqlTx): Promise<{ id: number; event: number } | undefined> {
  const [newest] = await tx.query<{ id: number | string; ev: number | string }>(
    sql`SELECT id, COALESCE(event_id, id) AS ev FROM admission_calls ORDER BY id DESC LIMIT 1`,
  );
  return newest && { id: Number(newest.id), event: Number(newest.ev) };
}

/** Spans that no stored decision falls in any more (SQLite's hook spans). */
async function dropSpansBelowOldest(tx: SqlTx, dialect: Dialect): Promise<void> {
  if (spansServeHooks(dialect))
    await tx.query(
      sql`DELETE FROM admission_hook_spans WHERE first_id < (SELECT MIN(id) FROM admission_calls) AND last_id < (SELECT MIN(id) FROM admission_calls)`,
    );
}

/**
 * Deletes the oldest decisions stored before `cutoff`, about `chunk` of them: up to the time of
 * the chunk-th oldest, so an event's decisions (which share its time) go together.
 */
async function pruneAged(
  tx: SqlTx,
  cutoff: number,
  chunk: number,
  dialect: Dialect,
): Promise<PruneStep> {
  const newest = await newestRow(tx);
  if (!newest) return { deleted: 0, more: false };
  const [bound] = await tx.query<{ time: number | string }>(
    sql`SELECT time FROM admission_calls WHERE time < ${cutoff} ORDER BY time LIMIT 1 OFFSET ${chunk - 1}`,
  );
  const upToTime = bound ? Number(bound.time) : cutoff - 1;
  const aged = sql`time < ${cutoff} AND time <= ${upToTime} AND id <> ${newest.id} AND id <> ${newest.event} AND (event_id IS NULL OR event_id <> ${newest.event})`;
  const deleted = await countOf(
    tx,
    concat(sql`SELECT COUNT(*) AS n FROM admission_calls WHERE `, aged),
  );
  if (deleted > 0) {
    const [top] = await tx.query<{ id: number | string | null }>(
      concat(sql`SELECT MAX(id) AS id FROM admission_calls WHERE seq = 0 AND `, aged),
    );
    await tx.query(concat(sql`DELETE FROM admission_calls WHERE `, aged));
    if (top?.id !== null && top?.id !== undefined)
      await dropEventTexts(tx, Number(top.id), newest.id);
    await dropSpansBelowOldest(tx, dialect);
  }
  return { deleted, more: bound !== undefined && deleted > 0 };
}

/**
 * Deletes the events whose first decision has an id up to `upTo`, the oldest first, about
 * `chunk` decisions of them.
 */
async function pruneOldest(
  tx: SqlTx,
  upTo: number,
  chunk: number,
  dialect: Dialect,
): Promise<PruneStep> {
  const newest = await newestRow(tx);
  const [oldest] = await tx.query<{ id: number | string | null }>(
    sql`SELECT MIN(id) AS id FROM admission_calls`,
  );
  if (!newest || oldest?.id === null || oldest?.id === undefined || Number(oldest.id) > upTo)
    return { deleted: 0, more: false };
  const to = Math.min(upTo, Number(oldest.id) + chunk - 1);
  let deleted = 0;
  // The first decisions up to `to`, and with them later decisions of their events (stored after
  // the batch's first ones, so with higher ids).
  for (const over of [sql`id <= ${to}`, sql`event_id <= ${to}`]) {
    const n = await countOf(
      tx,
      concat(sql`SELECT COUNT(*) AS n FROM admission_calls WHERE `, over),
    );
    if (n > 0) await tx.query(concat(sql`DELETE FROM admission_calls WHERE `, over));
    deleted += n;
  }
  await dropEventTexts(tx, to, newest.id);
  if (deleted > 0) await dropSpansBelowOldest(tx, dialect);
  return { deleted, more: to < upTo };
}

/**
 * Applies `retention` at `now`, about `chunk` rows a transaction, letting the event loop turn
 * between them (see DecisionStore.prune). Returns how many decisions were deleted.
 */
export async function pruneInChunks(
  driver: SqlDriver,
  read: Read,
  retention: Retention,
  now: number,
  chunk: number,
): Promise<number> {
  const turn = () => new Promise((r) => setImmediate(r));
  let deleted = 0;
  for (let more = true; more; await turn()) {
    const step = await driver.transaction((tx) =>
      pruneAged(tx, now - retention.maxAgeMs, chunk, driver.dialect),
    );
    deleted += step.deleted;
    more = step.more;
  }
  // Where the row limit cuts, found once, by the feed's reader (it steps over up to the whole
  // store: 60 ms at a million decisions): rows stored meanwhile only move it later, and the
  // next prune takes those.
  const [cut] = await read<{ id: number | string }>(
    sql`SELECT id FROM admission_calls ORDER BY id DESC LIMIT 1 OFFSET ${retention.maxRows}`,
  );
  if (!cut) return deleted;
  const upTo = Number(cut.id);
  for (let more = true; more; await turn()) {
    const step = await driver.transaction((tx) => pruneOldest(tx, upTo, chunk, driver.dialect));
    deleted += step.deleted;
    more = step.more;
  }
  return deleted;
}
