const SEVERITIES = ["critical", "high", "medium", "low", "info"] as const;

/** Finding counts by severity, worst first; "…" while the linter loads. */
export function FindingsBadges({
  counts,
  pending,
}: {
  counts: Readonly<Record<string, number>> | undefined;
  pending: boolean;
}) {
  if (pending) return <span className="muted">…</span>;
  const present = SEVERITIES.filter((s) => (counts?.[s] ?? 0) > 0);
  if (present.length === 0) return <span className="muted">none</span>;
  return (
    <>
      {present.map((s) => (
        <span key={s} className={`sev sev-${s}`} title={`${counts?.[s]} ${s}`}>
          {counts?.[s]} {s[0]?.toUpperCase()}
        </span>
      ))}
    </>
  );
}
