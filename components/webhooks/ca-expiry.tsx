import { daysLeft } from "@/lib/webhooks/summary";

/** CA expiry as days left, coloured when close or past; "system roots" when no caBundle. */
export function CaExpiry({ notAfter, now }: { notAfter: string; now: number }) {
  if (!notAfter) return <span className="muted">system roots</span>;
  if (notAfter === "invalid") return <span className="bad">unreadable</span>;
  const d = daysLeft(notAfter, now);
  const cls = d < 0 ? "bad" : d < 30 ? "warn" : undefined;
  return (
    <span className={cls} title={`notAfter ${notAfter}`}>
      {d < 0 ? `expired ${-d}d ago` : `${d}d`}
    </span>
  );
}
