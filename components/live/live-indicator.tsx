import type { LiveState } from "./use-live-collections";
import type { LiveProblem } from "@/lib/queries/collections";

/** What the waiting states mean, on hovering them. */
const WHY: Partial<Record<LiveState | "paused", string>> = {
  waiting:
    "Other tabs of this browser hold every connection kept for live updates; this page goes live when one closes or is hidden.",
  background:
    "This tab is in the background and gave its live connection to another tab; it goes live again when shown.",
};

/**
 * The small state mark beside a page's title: `live`, `connecting`, `reconnecting`, `paused`,
 * `waiting` or `background` (see WHY), or, when the dashboard's own watch is failing,
 * "not current" with the apiserver's reason and message (announced to screen readers; the page
 * keeps what was last seen).
 */
export function LiveIndicator({
  state,
  problem,
}: {
  state: LiveState | "paused";
  problem?: LiveProblem;
}) {
  if (state === "stale" && problem) {
    return (
      <span className="live" data-state="stale" role="status" title={problem.message}>
        not current · {problem.reason || problem.status}:{" "}
        <span className="live-problem">{problem.message}</span>
      </span>
    );
  }
  return (
    <span className="live" data-state={state} title={WHY[state]}>
      {state}
    </span>
  );
}
