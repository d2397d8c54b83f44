/**
 * Effects next to causes: a hook's decisions in the N minutes before and after a change of its
 * configuration, counted the same way on both sides so a jump shows.
 */

/** The window either side of a change, minutes: what the pages offer, 15 by default. */
export const EFFECT_WINDOWS_MIN = [5, 15, 30, 60] as const;
export const DEFAULT_EFFECT_WINDOW_MIN = 15;

/** One decision as the comparison needs it. */
export interface EffectDecision {
  time: number;
  outcome: string;
  /** The call's duration (ms) when the apiserver's traces timed it. */
  latencyMs?: number;
}

export interface WindowStats {
  calls: number;
  denials: number;
  errors: number;
  failOpens: number;
  timeouts: number;
  /** p99 of the timed calls (ms); undefined when none was timed. */
  p99Ms?: number;
}

export interface BeforeAfter {
  /** The change's time and the window either side (ms). */
  at: number;
  windowMs: number;
  before: WindowStats;
  after: WindowStats;
}

/** The nearest-rank p-th percentile of `values` (undefined when empty). */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

function windowStats(decisions: readonly EffectDecision[]): WindowStats {
  const s: WindowStats = { calls: 0, denials: 0, errors: 0, failOpens: 0, timeouts: 0 };
  const timed: number[] = [];
  for (const d of decisions) {
    s.calls++;
    if (d.outcome === "denied" || d.outcome === "rejected") s.denials++;
    else if (d.outcome === "error") s.errors++;
    else if (d.outcome === "failed-open") s.failOpens++;
    else if (d.outcome === "timeout") s.timeouts++;
    if (d.latencyMs !== undefined) timed.push(d.latencyMs);
  }
  const p99 = percentile(timed, 99);
  return p99 === undefined ? s : { ...s, p99Ms: p99 };
}

/**
 * The decisions in [at − window, at) against those in (at, at + window]: a decision at the very
 * instant of the change belongs to neither side.
 */
export function beforeAfter(
  decisions: readonly EffectDecision[],
  at: number,
  windowMs: number,
): BeforeAfter {
  return {
    at,
    windowMs,
    before: windowStats(decisions.filter((d) => d.time >= at - windowMs && d.time < at)),
    after: windowStats(decisions.filter((d) => d.time > at && d.time <= at + windowMs)),
  };
}
