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
