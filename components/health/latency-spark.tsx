/**
 * p99 latency per scrape interval against the hook's timeout, as a small line: the dashed top
 * line is the timeout, the dotted one half of it (where a hook is flagged).
 */
export function LatencySpark({
  points,
  timeoutSeconds,
  label,
  span,
  markers = [],
}: {
  points: Array<number | null>;
  timeoutSeconds: number;
  label: string;
  /** When the first and last points were read: with it, `markers` are drawn where they fall. */
  span?: { from: number; to: number };
  /** Changes of the hook's configuration, each a line at its time. */
  markers?: ReadonlyArray<{ id: number; time: number; title: string }>;
}) {
  const w = 96;
  const h = 22;
  if (points.every((p) => p === null)) return <span className="muted">no calls</span>;
  const x = (i: number) => (points.length <= 1 ? w : (i / (points.length - 1)) * w);
  const y = (s: number) => h - Math.min(s / timeoutSeconds, 1) * (h - 2) - 1;
  let d = "";
  points.forEach((p, i) => {
    if (p === null) return;
    d += `${d === "" || points[i - 1] === null ? "M" : "L"}${x(i).toFixed(1)},${y(p).toFixed(1)} `;
  });
  return (
    <svg className="spark" width={w} height={h} role="img" aria-label={label}>
      <line x1={0} x2={w} y1={1} y2={1} className="spark-timeout" />
      <line
        x1={0}
        x2={w}
        y1={y(timeoutSeconds / 2)}
        y2={y(timeoutSeconds / 2)}
        className="spark-half"
      />
      <path d={d} className="spark-line" />
      {span && span.to > span.from
        ? markers
            .filter((m) => m.time >= span.from && m.time <= span.to)
            .map((m) => {
              const mx = ((m.time - span.from) / (span.to - span.from)) * w;
              return (
                <g key={m.id} data-testid="health-change-marker">
                  <title>{m.title}</title>
                  <line
                    x1={mx}
                    x2={mx}
                    y1={0}
                    y2={h}
                    style={{ stroke: "var(--accent)", strokeWidth: 1.5, strokeDasharray: "3 2" }}
                  />
                </g>
              );
            })
        : null}
    </svg>
  );
}
