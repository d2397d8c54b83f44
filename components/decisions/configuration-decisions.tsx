import { RecentDecisions } from "./recent-decisions";

/** A webhook configuration's recent decisions, hook by hook, for its object page. */
export function ConfigurationDecisions({
  context,
  configuration,
  mutating,
  hooks,
}: {
  context: string;
  configuration: string;
  mutating: boolean;
  hooks: readonly { name?: string }[];
}) {
  if (hooks.length === 0) return null;
  return (
    <div className="panel">
      <h2>Recent decisions</h2>
      {hooks.map((h, i) => (
        <div key={`${h.name}-${i}`}>
          <div className="mono">{h.name}</div>
          <RecentDecisions
            context={context}
            name={h.name ?? ""}
            within={{ phase: mutating ? "mutating" : "validating", configuration }}
          />
        </div>
      ))}
    </div>
  );
}
