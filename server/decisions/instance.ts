import "server-only";
import type { DecisionRecord, ParsedAuditEvent } from "@/lib/admission/audit/audit";
import { decisionsConfig } from "./config";
import { SqliteDriver } from "./sqlite";
import { DecisionStore } from "./store";
import type { IngestResult, LogCursor } from "./store/types";
import type { SqlDriver } from "./sql";

type Listener = (decisions: DecisionRecord[]) => void;

interface State {
  store?: Promise<DecisionStore>;
  listeners: Set<Listener>;
  /** Ids told to listeners lately, oldest first: a decision is told once, whoever stored it. */
  told: Set<number>;
  lastPrune: number;
  sincePrune: number;
}

/** How many recent ids are remembered to drop repeats (far more than one notice holds). */
const TOLD_MEMORY = 50_000;
/** Longest the first open waits for the replica channel (it keeps retrying after). */
const LISTEN_WAIT_MS = 5_000;

const g = globalThis as typeof globalThis & { portcullisDecisionState?: State };

function state(): State {
  g.portcullisDecisionState ??= {
    listeners: new Set(),
    told: new Set(),
    lastPrune: 0,
    sincePrune: 0,
  };
  return g.portcullisDecisionState;
}

async function openDriver(): Promise<{ driver: SqlDriver; store: DecisionStore }> {
  const config = decisionsConfig();
  let driver: SqlDriver;
  if (config.databaseUrl) {
    const { PostgresDriver } = await import("./postgres");
    driver = new PostgresDriver(config.databaseUrl);
  } else {
    driver = new SqliteDriver(config.sqliteFile, config.sqliteSync);
  }
  return { driver, store: new DecisionStore(driver, config.retention) };
}

/**
 * The process-wide decision store, opened (and its tables created) on first use. A failed open
 * is not remembered: the next call tries again, so storage that comes back is used again.
 */
export function decisionStore(): Promise<DecisionStore> {
  const s = state();
  if (!s.store) {
    const opening = (async () => {
      const { driver, store } = await openDriver();
      try {
        await store.migrate();
      } catch (e) {
        await driver.close().catch(() => undefined);
        throw e;
      }
      keepPruning(store);
      // Replicas sharing PostgreSQL: what the others store reaches this one's live feeds too.
      // A feed opened right after start must not miss any: wait (briefly) for LISTEN.
      const listening = store.watchOthers(tell);
      if (listening)
        await Promise.race([listening.ready, new Promise((r) => setTimeout(r, LISTEN_WAIT_MS))]);
      return store;
    })();
    s.store = opening;
    opening.catch(() => {
      if (s.store === opening) s.store = undefined;
    });
  }
  return s.store;
}

/** Calls `listener` with every batch of newly stored decisions; returns the unsubscribe function. */
export function subscribeDecisions(listener: Listener): () => void {
  const s = state();
  s.listeners.add(listener);
  return () => s.listeners.delete(listener);
}

const PRUNE_EVERY_MS = 30_000;
/**
 * How often a store that receives no batches is pruned (by age: its row count does not grow).
 * Without it, decisions past the age limit stayed in the feed until the next batch arrived.
 */
const IDLE_PRUNE_EVERY_MS = 5 * 60_000;

/** Applies retention soon (after the current turn of the event loop), in the background. */
function pruneSoon(store: DecisionStore, now: number): void {
  const s = state();
  s.lastPrune = now;
  s.sincePrune = 0;
  setImmediate(() => void store.prune(now).catch(() => undefined));
}

/** Prunes a store once it is open, and again whenever it has gone a while without a prune. */
function keepPruning(store: DecisionStore): void {
  pruneSoon(store, Date.now());
  setInterval(() => {
    const now = Date.now();
    if (now - state().lastPrune >= IDLE_PRUNE_EVERY_MS) pruneSoon(store, now);
  }, IDLE_PRUNE_EVERY_MS).unref();
}

/** Tells live subscribers of newly stored decisions, each decision once. */
function tell(decisions: DecisionRecord[]): void {
  const s = state();
  const fresh = decisions.filter((d) => !s.told.has(d.id));
  if (fresh.length === 0) return;
  for (const d of fresh) s.told.add(d.id);
  // A Set iterates in insertion order: the first ones are the oldest.
  for (const id of s.told) {
    if (s.told.size <= TOLD_MEMORY) break;
    s.told.delete(id);
  }
  for (const l of s.listeners) {
    try {
      l(fresh);
    } catch {
      // one broken stream must not fail the batch that was already stored
    }
  }
}

/**
 * Stores parsed events durably (one transaction, with the audit log follower's cursor when given)
 * and then tells live subscribers. Throws when
 * storage fails: the caller answers 5xx and the apiserver retries the batch.
 */
export async function storeDecisions(
  events: ParsedAuditEvent[],
  cursor?: LogCursor,
): Promise<IngestResult> {
  const store = await decisionStore();
  const result = await store.ingest(events, cursor);
  const s = state();
  tell(result.decisions);
  s.sincePrune += result.decisions.length;
  const now = Date.now();
  if (now - s.lastPrune > PRUNE_EVERY_MS || s.sincePrune > store.retention.maxRows / 10)
    pruneSoon(store, now);
  return result;
}
