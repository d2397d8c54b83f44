import type { ReactNode } from "react";
import { RecentDecisions } from "./recent-decisions";

/** A webhook configuration's recent decisions, hook by hook, for its object page. */
export function ConfigurationDecisions({
  context,
  configuration,
  mutating,
  hooks,
  hint,
  after,
}: {
  context: string;
  configuration: string;
  mutating: boolean;
  hooks: readonly { name?: string }[];
  hint?: string;
  /** What follows a hook's decisions (e.g. the effects of its configuration's changes). */
  after?: (hook: string) => ReactNode;
}) {
  if (hooks.length === 0) return null;
  return (
    <div className="panel">
      <h2>Recent decisions</h2>
      {hint ? <p className="hint">{hint}</p> : null}
      {hooks.map((h, i) => (
        <div key={`${h.name}-${i}`}>
          <div className="mono">{h.name}</div>
          <RecentDecisions
            context={context}
            name={h.name ?? ""}
            within={{ phase: mutating ? "mutating" : "validating", configuration }}
          />
          {after?.(h.name ?? "")}
        </div>
      ))}
    </div>
  );
}
