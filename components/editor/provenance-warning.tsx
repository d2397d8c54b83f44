import {
  injectedTermsChanged,
  type ConfigurationProvenance,
} from "@/lib/admission/provenance/provenance";

/**
 * Before an apply: the terms this edit changes or removes that another field manager than the
 * configuration's creator wrote. That manager keeps writing them (an enforcer, an injector, an
 * operator), so the change does not last; where the platform is known, its opt-out is named.
 */
export function ProvenanceWarning({
  provenance,
  edited,
}: {
  provenance: ConfigurationProvenance | undefined;
  /** The edit as parsed from the editor's text (undefined while it does not parse). */
  edited: unknown;
}) {
  if (!provenance || edited === undefined) return null;
  const changed = injectedTermsChanged(provenance, edited);
  if (changed.length === 0) return null;
  return (
    <div className="callout warn" role="status" data-testid="provenance-warning">
      <strong>
        This edit changes {changed.length === 1 ? "a term" : `${changed.length} terms`} another
        field manager wrote:
      </strong>
      <ul>
        {changed.map(({ section, term }) => (
          <li key={`${section}\u0000${term.term}`}>
            <span className="mono">{section}</span> <span className="mono">{term.field}</span>{" "}
            <span className="mono">{term.text}</span>: this term is added by {term.injected?.by}
            {term.injected?.platform ? ` (${term.injected.platform.name})` : ""} and will come back.
            {term.injected?.platform?.optOut
              ? ` To keep it away: ${term.injected.platform.optOut}.`
              : ` Change it where ${term.injected?.by} takes it from, or stop ${term.injected?.by} managing it.`}
          </li>
        ))}
      </ul>
    </div>
  );
}
