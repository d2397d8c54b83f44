/**
 * Notices between replicas sharing a PostgreSQL database: each commit announces the range of
 * decision ids it stored, so every replica's live feed shows every decision.
 */
import "server-only";
import type { DecisionRecord } from "@/lib/admission/audit/audit";
import { sql, type Listening, type SqlDriver, type SqlTx } from "../sql";
import type { IngestResult } from "./types";

/** The PostgreSQL channel on which replicas announce the decisions they store. */
const NOTICE_CHANNEL = "portcullis_decisions";
/** Most rows one notice's range is read with (a group commit stores far fewer). */
export const MAX_NOTICE_ROWS = 100_000;
/** Most rows read after a lost listening connection (a live feed then resyncs on its own). */
const GAP_READ_LIMIT = 5_000;

interface ReplicaNotice {
  origin: string;
  from: number;
  to: number;
}

/** A notice from the channel, or undefined when it is not one of ours (anyone may NOTIFY). */
function parseNotice(payload: string): ReplicaNotice | undefined {
  if (payload.length > 200) return undefined;
  try {
    const v = JSON.parse(payload) as Partial<ReplicaNotice>;
    const ok =
      typeof v.origin === "string" &&
      Number.isSafeInteger(v.from) &&
      Number.isSafeInteger(v.to) &&
      (v.from as number) <= (v.to as number) &&
      (v.to as number) - (v.from as number) < MAX_NOTICE_ROWS;
    return ok ? (v as ReplicaNotice) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Tells other processes sharing the database which decisions this transaction stores: sent
 * with the commit (PostgreSQL delivers a NOTIFY only when its transaction commits), so a
 * notice never names rows a reader cannot see yet. `origin` names the process.
 */
export async function notifyOthers(
  tx: SqlTx,
  origin: string,
  results: IngestResult[],
): Promise<void> {
  let lo = Infinity;
  let hi = -Infinity;
  for (const r of results)
    for (const d of r.decisions) {
      lo = Math.min(lo, d.id);
      hi = Math.max(hi, d.id);
    }
  if (hi < lo) return;
  const notice: ReplicaNotice = { origin, from: lo, to: hi };
  await tx.query(sql`SELECT pg_notify(${NOTICE_CHANNEL}, ${JSON.stringify(notice)})`);
}

/** How a watcher reads the decisions a notice names, or those it may have missed. */
export interface NoticeReads {
  /** Decisions with ids in [from, to], oldest first. */
  range(from: number, to: number): Promise<DecisionRecord[]>;
  /** Decisions above the id `after`, oldest first, at most `limit`. */
  after(after: number, limit: number): Promise<DecisionRecord[]>;
}

/**
 * Calls `deliver` with the decisions that processes other than `origin` store, as they commit
 * them (see DecisionStore.watchOthers). Undefined where the driver has no notices.
 */
export function watchOthers(
  driver: SqlDriver,
  origin: string,
  reads: NoticeReads,
  deliver: (decisions: DecisionRecord[]) => void,
): Listening | undefined {
  if (!driver.listen) return undefined;
  let newest = 0;
  const read = (q: Promise<DecisionRecord[]>) =>
    q
      .then((rows) => {
        for (const d of rows) newest = Math.max(newest, d.id);
        if (rows.length > 0) deliver(rows);
      })
      .catch(() => undefined); // the next notice or reconnect reads again
  return driver.listen(
    NOTICE_CHANNEL,
    (payload) => {
      const notice = parseNotice(payload);
      if (!notice) return;
      newest = Math.max(newest, notice.to);
      if (notice.origin === origin) return;
      read(reads.range(notice.from, notice.to));
    },
    () => void read(reads.after(newest, GAP_READ_LIMIT)),
  );
}
