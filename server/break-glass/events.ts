/**
 * Tells this process's event streams (app/api/break-glass/stream) that the break-glass episodes
 * changed: one started, a revert began, ended, failed or was answered here — or the sweep found
 * the store's open episodes changed by another replica. The browser then reads the list again:
 * the event carries no episode, so what it shows is always what the list route lets the user see.
 */
import "server-only";

type Listener = () => void;

const g = globalThis as typeof globalThis & { portcullisBreakGlassEvents?: Set<Listener> };

// One set per process: route handlers and instrumentation.ts may load this module apart.
const listeners = (): Set<Listener> => (g.portcullisBreakGlassEvents ??= new Set());

export function subscribeBreakGlass(fn: Listener): () => void {
  listeners().add(fn);
  return () => listeners().delete(fn);
}

export function notifyBreakGlass(): void {
  for (const fn of [...listeners()]) {
    try {
      fn();
    } catch {
      // one stream's failure is its own
    }
  }
}

/**
 * What the sweep compares between rounds: the open episodes' ids, states and outcomes (an
 * episode another replica started, reverted, or failed to revert changes it).
 */
export function openFingerprint(
  rows: ReadonlyArray<{ record: { id: string }; state: string; outcome?: string }>,
): string {
  return rows.map((r) => `${r.record.id}:${r.state}:${r.outcome ?? ""}`).join("\n");
}
