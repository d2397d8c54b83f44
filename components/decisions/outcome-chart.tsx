import { DECISION_OUTCOMES } from "@/lib/admission/audit/audit";
import type { DecisionHistogram } from "@/lib/decisions/histogram";
import { OUTCOME_COLOURS, OUTCOME_LABELS } from "@/lib/decisions/outcomes";
import { clockMinute } from "@/lib/clock";
import type { ChangeMarker } from "@/lib/admission/history/timeline";

const W = 720;
const H = 80;

/**
 * Decisions over time, stacked by outcome: plain SVG, one bar per bucket; `markers` draws a line
 * at each change of the configuration the decisions belong to.
 */
export function OutcomeChart({
  histogram,
  markers = [],
}: {
  histogram: DecisionHistogram;
  markers?: readonly ChangeMarker[];
}) {
  const { bucketMs, from, to } = histogram;
  const first = Math.floor(from / bucketMs) * bucketMs;
  const slots = Math.max(1, Math.ceil((to - first) / bucketMs));
  const totals = histogram.buckets.map((b) =>
    Object.values(b.counts).reduce<number>((a, n) => a + (n ?? 0), 0),
  );
  const max = Math.max(1, ...totals);
  const barW = W / slots;
  const present = DECISION_OUTCOMES.filter((o) => histogram.buckets.some((b) => b.counts[o]));
  const total = totals.reduce((a, n) => a + n, 0);
  const step =
    bucketMs >= 3_600_000
      ? `${bucketMs / 3_600_000} h`
      : bucketMs >= 60_000
        ? `${bucketMs / 60_000} min`
        : `${bucketMs / 1000} s`;
  return (
    <figure className="chart" aria-label="Decisions over time by outcome">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`${total} decisions`}
      >
        <line x1={0} x2={W} y1={H - 0.5} y2={H - 0.5} style={{ stroke: "var(--line)" }} />
        {histogram.buckets.map((b) => {
          const x = ((b.start - first) / bucketMs) * barW;
          let y = H;
          return (
            <g key={b.start}>
              <title>
                {`${clockMinute(b.start)}: ${DECISION_OUTCOMES.filter((o) => b.counts[o])
                  .map((o) => `${b.counts[o]} ${OUTCOME_LABELS[o]}`)
                  .join(", ")}`}
              </title>
              {DECISION_OUTCOMES.map((o) => {
                const n = b.counts[o] ?? 0;
                if (n === 0) return null;
                const h = Math.max(1, (n / max) * (H - 2));
                y -= h;
                return (
                  <rect
                    key={o}
                    x={x + 0.5}
                    y={y}
                    width={Math.max(1, barW - 1)}
                    height={h}
                    fill={OUTCOME_COLOURS[o]}
                  />
                );
              })}
            </g>
          );
        })}
        {markers.map((m) => {
          const x = Math.min(W - 1, Math.max(1, ((m.time - first) / (slots * bucketMs)) * W));
          return (
            <g key={`m-${m.id}`} className="change-marker" data-testid="change-marker">
              <title>{`${clockMinute(m.time)}: ${m.operation} of ${m.kind} ${m.name} by ${m.who}`}</title>
              <line
                x1={x}
                x2={x}
                y1={0}
                y2={H}
                style={{ stroke: "var(--accent)", strokeWidth: 2, strokeDasharray: "4 2" }}
              />
              <rect x={x - 4} y={0} width={8} height={8} style={{ fill: "var(--accent)" }} />
            </g>
          );
        })}
      </svg>
      <div className="axis">
        <span>{clockMinute(first)}</span>
        <span>
          {total} decisions · tallest bar {max} per {step}
        </span>
        <span>{clockMinute(to)}</span>
      </div>
      <figcaption className="legend">
        {present.length === 0 ? <span className="muted">no decisions in this window</span> : null}
        {present.map((o) => (
          <span key={o}>
            <i style={{ background: OUTCOME_COLOURS[o] }} /> {OUTCOME_LABELS[o]}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
