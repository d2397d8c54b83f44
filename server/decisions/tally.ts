import "server-only";
import { decisionFilterParams, type DecisionFilter } from "@/lib/decisions/filter";
import { TALLY_LIMIT, TALLY_WINDOW_MS, type DecisionTallyResponse } from "@/lib/decisions/tally";
import type { DecisionStore } from "./store";

/**
 * Window edges are aligned to this, and one count serves every request for the same window for
 * this long: every overview open anywhere polls the tally, and a count reads every decision of
 * its window (about 0.75 s for 1,000,000 on SQLite), so however many are open the store counts
 * each window at most once per interval. A count is at most this old.
 */
export const TALLY_SHARED_MS = 5_000;

interface Shared {
  until: number;
  result: Promise<DecisionTallyResponse>;
}

const counts = new WeakMap<DecisionStore, Map<string, Shared>>();

/**
 * The filter's decisions counted by webhook or policy and outcome over its time range (by
 * default the last 15 minutes, ending now), edges aligned to TALLY_SHARED_MS; a count made for
 * the same window within that long is reused (a failed one is not).
 */
export function sharedTally(
  store: DecisionStore,
  f: DecisionFilter,
  now = Date.now(),
): Promise<DecisionTallyResponse> {
  const align = (ms: number, up: boolean) =>
    (up ? Math.ceil(ms / TALLY_SHARED_MS) : Math.floor(ms / TALLY_SHARED_MS)) * TALLY_SHARED_MS;
  const to = align(f.to ?? now, true);
  const from = align(f.from ?? to - TALLY_WINDOW_MS, false);
  const window = { ...f, from, to };
  const shared = counts.get(store) ?? new Map<string, Shared>();
  counts.set(store, shared);
  for (const [k, v] of shared) if (v.until <= now) shared.delete(k);
  const key = decisionFilterParams(window).toString();
  const hit = shared.get(key);
  if (hit) return hit.result;
  const result = store.tally(window, TALLY_LIMIT + 1).then((tallies): DecisionTallyResponse => ({
    from,
    to,
    tallies: tallies.slice(0, TALLY_LIMIT),
    truncated: tallies.length > TALLY_LIMIT,
  }));
  shared.set(key, { until: now + TALLY_SHARED_MS, result });
  result.catch(() => shared.delete(key));
  return result;
}
