import type { Comparison } from "@/lib/predict/compare";

/** Statements about prediction versus the apiserver: agreements ticked, mismatches marked. */
export function Comparisons({
  label,
  items,
  agreeId,
}: {
  label: string;
  items: readonly Comparison[];
  /** data-testid of an agreeing row (mismatches are always `mismatch`). */
  agreeId: string;
}) {
  return (
    <ul className="comparisons" aria-label={label}>
      {items.map((c) => (
        <li
          key={c.message}
          className={c.agrees ? "good" : "mismatch"}
          data-testid={c.agrees ? agreeId : "mismatch"}
        >
          {c.agrees ? "✓ " : "✗ Mismatch: "}
          {c.message}
        </li>
      ))}
    </ul>
  );
}
