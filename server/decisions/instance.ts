import "server-only";
import type { DecisionRecord, ParsedAuditEvent } from "@/lib/admission/audit";
import { decisionsConfig } from "./config";
import { SqliteDriver } from "./sqlite";
import { DecisionStore, type IngestResult, type LogCursor } from "./store";
import type { SqlDriver } from "./sql";

type Listener = (decisions: DecisionRecord[]) => void;

interface State {
  store?: Promise<DecisionStore>;
  listeners: Set<Listener>;
  lastPrune: number;
  sincePrune: number;
}

const g = globalThis as typeof globalThis & { portcullisDecisionState?: State };

function state(): State {
  g.portcullisDecisionState ??= { listeners: new Set(), lastPrune: 0, sincePrune: 0 };
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
  if (result.decisions.length > 0) {
    for (const l of s.listeners) {
      try {
        l(result.decisions);
      } catch {
        // one broken stream must not fail the batch that was already stored
      }
    }
  }
  s.sincePrune += result.decisions.length;
  const now = Date.now();
  if (now - s.lastPrune > PRUNE_EVERY_MS || s.sincePrune > store.retention.maxRows / 10) {
    s.lastPrune = now;
    s.sincePrune = 0;
    setImmediate(() => void store.prune(now).catch(() => undefined));
  }
  return result;
}
