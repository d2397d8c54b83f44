/** Time buckets for the decisions-over-time chart. Pure. */

const STEPS_MS = [
  10_000,
  30_000,
  60_000,
  300_000,
  900_000,
  3_600_000,
  6 * 3_600_000,
  86_400_000,
  7 * 86_400_000,
];

/** Default window of the chart when the filter names no time range. */
export const DEFAULT_CHART_WINDOW_MS = 3_600_000;

/** The smallest bucket size that covers [from, to) in at most `maxBuckets` buckets. */
export function bucketSizeFor(from: number, to: number, maxBuckets = 60): number {
  const span = Math.max(1, to - from);
  for (const s of STEPS_MS) if (span / s <= maxBuckets) return s;
  return STEPS_MS[STEPS_MS.length - 1] ?? 86_400_000;
}

/** A chart of decision counts by outcome over [from, to) in buckets of bucketMs. */
export interface DecisionHistogram {
  bucketMs: number;
  from: number;
  to: number;
  buckets: Array<{ start: number; counts: Partial<Record<string, number>> }>;
}

/**
 * Adds live decisions to a chart. With `openEnded` (the filter names no end time) the window
 * grows to include new decisions; otherwise those outside [from, to) are left out.
 */
export function addToHistogram<H extends DecisionHistogram>(
  h: H,
  items: ReadonlyArray<{ time: number; outcome: string }>,
  openEnded: boolean,
): H {
  const buckets = new Map(h.buckets.map((b) => [b.start, { ...b, counts: { ...b.counts } }]));
  let to = h.to;
  for (const d of items) {
    if (d.time < h.from) continue;
    if (d.time >= to) {
      if (!openEnded) continue;
      to = d.time + 1;
    }
    const start = Math.floor(d.time / h.bucketMs) * h.bucketMs;
    let b = buckets.get(start);
    if (!b) {
      b = { start, counts: {} };
      buckets.set(start, b);
    }
    b.counts[d.outcome] = (b.counts[d.outcome] ?? 0) + 1;
  }
  return { ...h, to, buckets: [...buckets.values()].sort((a, b) => a.start - b.start) };
}
