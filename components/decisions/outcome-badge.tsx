import type { DecisionOutcome } from "@/lib/admission/audit/audit";
import { OUTCOME_LABELS, OUTCOME_TONES } from "@/lib/decisions/outcomes";

/** An outcome as a small badge; timeouts, errors and fail-opens are loud on purpose. */
export function OutcomeBadge({ outcome }: { outcome: DecisionOutcome }) {
  return (
    <span className={`outcome tone-${OUTCOME_TONES[outcome]}`} data-outcome={outcome}>
      {OUTCOME_LABELS[outcome]}
    </span>
  );
}
