/**
 * The process-wide change history: on the decision store's database (its driver, so SQLite or
 * PostgreSQL as configured), under its retention limits, its table created on first use.
 */
import "server-only";
import { decisionStore } from "@/server/decisions/instance";
import { HistoryStore } from "./store";

const g = globalThis as typeof globalThis & {
  portcullisHistory?: { store?: Promise<HistoryStore>; lastPrune: number };
};

/** How often the history is pruned, at most (on writes), and while idle. */
const PRUNE_EVERY_MS = 60_000;

export function historyStore(): Promise<HistoryStore> {
  const s = (g.portcullisHistory ??= { lastPrune: 0 });
  if (!s.store) {
    const opening = (async () => {
      const decisions = await decisionStore();
      const store = new HistoryStore(decisions.driver, decisions.retention);
      await store.migrate();
      setInterval(() => void store.prune().catch(() => undefined), 5 * PRUNE_EVERY_MS).unref();
      return store;
    })();
    s.store = opening;
    opening.catch(() => {
      if (s.store === opening) s.store = undefined;
    });
  }
  return s.store;
}

/** Prunes soon when it has not been pruned for a while (called after writes). */
export function pruneHistorySoon(store: HistoryStore): void {
  const s = (g.portcullisHistory ??= { lastPrune: 0 });
  const now = Date.now();
  if (now - s.lastPrune < PRUNE_EVERY_MS) return;
  s.lastPrune = now;
  setImmediate(() => void store.prune(now).catch(() => undefined));
}
