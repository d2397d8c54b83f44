/**
 * Per-hook latency from the apiserver's own spans of each call: exact percentiles over the calls
 * kept, a distribution against the hook's timeout, and the most recent calls. Pure.
 */

/** One traced call, as kept per hook. */
export interface TracedCall {
  /** Start, milliseconds since the epoch. */
  startMs: number;
  durationMs: number;
  operation: string;
  resource: string;
  subresource: string;
  /** The AdmissionReview request uid. */
  uid: string;
  traceId: string;
  failed: boolean;
}

/** One webhook call of a request, as its trace recorded it (joined to the request's audit ID). */
export interface RequestCall {
  kind: "mutating" | "validating";
  configuration: string;
  webhook: string;
  startMs: number;
  durationMs: number;
  failed: boolean;
}

/**
 * The traced durations of the call(s) one decision records: same webhook (and configuration when
 * the decision names it), same phase when known; a mutating decision with a reinvocation round
 * takes that round's call when the request called the hook more than once.
 */
export function tracedDurations(
  decision: { kind: string; hook: string; configuration: string; round?: number },
  calls: readonly RequestCall[],
): number[] {
  const phase =
    decision.kind === "mutating-webhook"
      ? "mutating"
      : decision.kind === "validating-webhook"
        ? "validating"
        : decision.kind === "webhook"
          ? undefined
          : null;
  if (phase === null) return [];
  const mine = calls.filter(
    (c) =>
      c.webhook === decision.hook &&
      (phase === undefined || c.kind === phase) &&
      (decision.configuration === "" || c.configuration === decision.configuration),
  );
  if (decision.round !== undefined && mine.length > decision.round && mine.length > 1) {
    const one = mine[decision.round];
    return one ? [one.durationMs] : [];
  }
  return mine.map((c) => c.durationMs);
}

/** How the dashboard's trace receiver stands (a silent exporter must be visible). */
export interface ReceiverStatus {
  /** Where the receiver listens, or why it does not. */
  listening?: string;
  error?: string;
  exports: number;
  spans: number;
  droppedSpans: number;
  lastExportAt?: number;
  /** The apiserver instances (service.instance.id) that sent spans. */
  instances: string[];
}

/** Upper bounds (ms) of the distribution's bars; the last bar holds everything slower. */
export const TRACE_BOUNDS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000];

export interface TraceSummary {
  calls: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Calls that reached the hook's timeout (or failed). */
  atTimeout: number;
  failed: number;
  /** Counts per TRACE_BOUNDS_MS bar, plus one for slower calls. */
  histogram: number[];
  /** The latest calls, newest first. */
  recent: TracedCall[];
}

/** Nearest-rank quantile of ascending values. */
function quantile(sorted: number[], q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i] ?? 0;
}

/** Summarizes the calls of one hook (any order); undefined when there are none. */
export function summarizeCalls(
  calls: readonly TracedCall[],
  timeoutSeconds: number,
  recent = 10,
): TraceSummary | undefined {
  if (calls.length === 0) return undefined;
  const sorted = calls.map((c) => c.durationMs).sort((a, b) => a - b);
  const histogram = new Array<number>(TRACE_BOUNDS_MS.length + 1).fill(0);
  let atTimeout = 0;
  let failed = 0;
  for (const c of calls) {
    let b = TRACE_BOUNDS_MS.findIndex((bound) => c.durationMs <= bound);
    if (b === -1) b = TRACE_BOUNDS_MS.length;
    histogram[b] = (histogram[b] ?? 0) + 1;
    // A call cut off by the timeout ends a hair before or after it.
    if (c.durationMs >= timeoutSeconds * 1000 * 0.98) atTimeout++;
    if (c.failed) failed++;
  }
  return {
    calls: calls.length,
    p50: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? 0,
    atTimeout,
    failed,
    histogram,
    recent: [...calls].sort((a, b) => b.startMs - a.startMs).slice(0, recent),
  };
}
