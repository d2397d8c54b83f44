import { TRACE_BOUNDS_MS } from "@/lib/traces/summary";

const BAR = 8;
const H = 24;

/**
 * How a hook's traced calls spread over latency, one bar per bucket (≤5 ms … ≤30 s, slower), with
 * the hook's timeout as a dashed line: where people would rather look than read.
 */
export function TraceHistogram({
  histogram,
  timeoutSeconds,
  label,
}: {
  histogram: number[];
  timeoutSeconds: number;
  label: string;
}) {
  const max = Math.max(1, ...histogram);
  const w = histogram.length * BAR;
  let at = TRACE_BOUNDS_MS.findIndex((b) => b >= timeoutSeconds * 1000);
  if (at === -1) at = TRACE_BOUNDS_MS.length;
  const x = (at + 1) * BAR - 0.5;
  return (
    <svg className="spark trace-histogram" width={w} height={H} role="img" aria-label={label}>
      {histogram.map((n, i) =>
        n > 0 ? (
          <rect
            key={TRACE_BOUNDS_MS[i] ?? "slower"}
            x={i * BAR + 1}
            width={BAR - 2}
            y={H - Math.max(2, (n / max) * (H - 2))}
            height={Math.max(2, (n / max) * (H - 2))}
            className="trace-bar"
          >
            <title>
              {n} calls{" "}
              {i < TRACE_BOUNDS_MS.length
                ? `≤ ${TRACE_BOUNDS_MS[i]} ms`
                : `> ${TRACE_BOUNDS_MS.at(-1)} ms`}
            </title>
          </rect>
        ) : null,
      )}
      <line x1={x} x2={x} y1={0} y2={H} className="spark-timeout" />
    </svg>
  );
}
