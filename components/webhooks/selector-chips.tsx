import type { V1LabelSelector } from "@/lib/k8s/types";
import { selectorChips } from "@/lib/webhooks/explain";

/** A label selector as chips, each with its meaning; requirements are ANDed. */
export function SelectorChips({
  label,
  selector,
  subject,
}: {
  label: string;
  selector: V1LabelSelector | undefined;
  subject: string;
}) {
  const chips = selectorChips(selector);
  return (
    <div className="selector" aria-label={label}>
      <span className="muted">{label}: </span>
      {chips.length === 0 ? (
        <span>
          <span className="chip">{"{}"}</span>
          <span className="hint">every {subject}</span>
        </span>
      ) : (
        <>
          {chips.map((c) => (
            <span key={c.label} className="chip" title={c.meaning}>
              {c.label}
            </span>
          ))}
          <div className="hint">
            {subject}s where {chips.map((c) => c.meaning).join(" and ")}
          </div>
        </>
      )}
    </div>
  );
}
