import "server-only";
import { timingSafeEqual } from "node:crypto";
import { decisionsFromEventList, type AdmissionDecision } from "@/lib/admission/audit";

/** Audit batches larger than this are refused (the apiserver's batches are far smaller). */
export const MAX_AUDIT_BODY_BYTES = 16 * 1024 * 1024;

const RECENT_LIMIT = 5_000;
/** The ring is bounded in bytes too: one hostile batch of huge decisions cannot grow memory. */
const RECENT_BYTES = 32 * 1024 * 1024;

type Listener = (d: AdmissionDecision[]) => void;

/**
 * The minimal decision store: the most recent decisions in memory plus live subscribers.
 * It is the seam the decisions feature replaces with SQLite/PostgreSQL storage and retention.
 */
class RecentDecisions {
  private readonly items: AdmissionDecision[] = [];
  private readonly sizes: number[] = [];
  private bytes = 0;
  private readonly listeners = new Set<Listener>();
  received = 0;

  add(batch: AdmissionDecision[]): void {
    this.received += batch.length;
    for (const d of batch) {
      const size = JSON.stringify(d).length;
      this.items.push(d);
      this.sizes.push(size);
      this.bytes += size;
    }
    let drop = 0;
    while (
      drop < this.items.length &&
      (this.items.length - drop > RECENT_LIMIT || this.bytes > RECENT_BYTES)
    ) {
      this.bytes -= this.sizes[drop] ?? 0;
      drop++;
    }
    if (drop > 0) {
      this.items.splice(0, drop);
      this.sizes.splice(0, drop);
    }
    for (const l of this.listeners) l(batch);
  }

  /** Newest first, optionally only those with the given auditID. */
  list(opts: { limit: number; auditID?: string }): AdmissionDecision[] {
    const out: AdmissionDecision[] = [];
    for (let i = this.items.length - 1; i >= 0 && out.length < opts.limit; i--) {
      const d = this.items[i];
      if (d && (!opts.auditID || d.auditID === opts.auditID)) out.push(d);
    }
    return out;
  }

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}

const g = globalThis as typeof globalThis & { portcullisDecisions?: RecentDecisions };

/** The process-wide store of recent decisions. */
export function recentDecisions(): RecentDecisions {
  g.portcullisDecisions ??= new RecentDecisions();
  return g.portcullisDecisions;
}

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

/** Parses and stores one EventList body; returns how many decisions it held. */
export function ingestAuditBatch(text: string): number {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    throw new Error(`audit batch is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const decisions = decisionsFromEventList(body);
  recentDecisions().add(decisions);
  return decisions.length;
}
