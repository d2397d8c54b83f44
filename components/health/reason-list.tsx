import type { HealthReason } from "@/lib/admission/health/health";

/** Why a hook is flagged, one line per reason with its severity. */
export function ReasonList({ reasons }: { reasons: HealthReason[] }) {
  if (reasons.length === 0) return <span className="muted">nothing to report</span>;
  return (
    <ul className="reasons">
      {reasons.map((x) => (
        <li key={x.code} data-code={x.code}>
          <span className={`sev sev-${x.severity}`}>{x.severity[0]?.toUpperCase()}</span>
          {x.message}
        </li>
      ))}
    </ul>
  );
}
