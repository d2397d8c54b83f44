import type { DecisionOutcome, DecisionRecord } from "@/lib/admission/audit/audit";

/** Retention limits: decisions older than `maxAgeMs`, and beyond the newest `maxRows`, are deleted. */
export interface Retention {
  maxAgeMs: number;
  maxRows: number;
}

export interface IngestResult {
  /** Events stored by this batch. */
  stored: number;
  /** Events already stored (a retried batch): skipped. */
  duplicates: number;
  decisions: DecisionRecord[];
}

/**
 * Where a follower of an audit log file stands: the file's identity (device and inode, as
 * decimal text) and the offset just past the last line stored. Saved in the same transaction as
 * the events read before it, so a restart resumes exactly there.
 */
export interface LogCursor {
  /** Which log (its configured path). */
  name: string;
  dev: string;
  ino: string;
  offset: number;
}

/** One bucket of the decisions-over-time chart. */
export interface DecisionBucket {
  start: number;
  counts: Partial<Record<DecisionOutcome, number>>;
}

/** A decision with the audit event it came from, as stored (Secret contents already removed). */
export interface DecisionDetail {
  decision: DecisionRecord;
  rawEvent: string;
}
