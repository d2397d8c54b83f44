import type {
  ConfigurationProvenance,
  Granularity,
  Manager,
  SectionProvenance,
} from "@/lib/admission/provenance/provenance";
import type { ReconcileFight } from "@/lib/admission/provenance/fights";

/** What each granularity means, in the words the table shows. */
const GRANULARITY: Record<Granularity, string> = {
  field: "field",
  item: "list item",
  "atomic-intent": "by last-applied",
  "atomic-signature": "by platform signature",
  atomic: "whole selector",
};

const GRANULARITY_HINT: Record<Granularity, string> = {
  field: "The apiserver tracks this field's owner itself.",
  item: "A keyed list item: the apiserver tracks who added it and who changed its fields.",
  "atomic-intent":
    "The selector is atomic (one owner for all of it); this term is attributed by the last-applied configuration of its declared owner.",
  "atomic-signature":
    "The selector is atomic; this term is one the named platform adds, and that platform owns the selector.",
  atomic:
    "The selector is atomic: only the owner of the whole selector is known, not who wrote this term.",
};

function managerText(m: Manager): string {
  return `${m.manager} (${m.operation}${m.subresource ? ` /${m.subresource}` : ""}${m.time ? `, ${m.time}` : ""})`;
}

/**
 * Who wrote each field and term of one hook (or of an admission policy's or binding's spec),
 * injected ones flagged: the webhook and policy detail pages' Provenance view.
 */
export function ProvenanceTable({
  section,
  provenance,
  fights,
  subject = "hook",
}: {
  section: SectionProvenance | undefined;
  provenance: ConfigurationProvenance | undefined;
  /** Reconcile fights on these fields. */
  fights: readonly ReconcileFight[];
  /** What the section is, in words: `hook`, `policy`, `binding`. */
  subject?: string;
}) {
  if (!provenance) return <p className="muted">Reading the field managers…</p>;
  if (!section || section.terms.length === 0)
    return <p className="hint">No managedFields recorded for this {subject}.</p>;
  const injected = section.terms.filter((t) => t.injected);
  return (
    <div data-testid="hook-provenance">
      <p className="hint">
        {provenance.creator
          ? `Created by ${provenance.creator.manager.manager} (${provenance.creator.reason}).`
          : "The creating manager is not known."}{" "}
        {injected.length > 0
          ? `${injected.length} term${injected.length === 1 ? " was" : "s were"} written by another manager.`
          : "Every term is its creator's."}
      </p>
      {fights.map((f) => (
        <p key={f.path} className="bad" data-testid="hook-fight">
          Reconcile fight: {f.managers[0]} and {f.managers[1]} keep changing{" "}
          <span className="mono">{f.path}</span> ({f.changes.length} changes, last{" "}
          {new Date(f.changes[f.changes.length - 1]?.at ?? 0).toISOString()}).
        </p>
      ))}
      <table
        className="data"
        aria-label={`Field managers of ${section.name === "spec" ? `this ${subject}` : section.name}`}
      >
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Term</th>
            <th scope="col">Written by</th>
            <th scope="col">Known by</th>
          </tr>
        </thead>
        <tbody>
          {section.terms.map((t) => (
            <tr
              key={t.term}
              data-testid="provenance-term"
              data-injected={t.injected ? "true" : "false"}
            >
              <td className="mono">{t.field}</td>
              <td className="mono">{t.text}</td>
              <td>
                {t.owners.map(managerText).join(", ") || "—"}
                {t.unitOwners ? (
                  <div className="hint">
                    selector owned by {t.unitOwners.map((o) => o.manager).join(", ")}
                  </div>
                ) : null}
                {t.injected ? (
                  <div className="warn" data-testid="injected-term">
                    Injected by {t.injected.by}
                    {t.injected.platform
                      ? ` — ${t.injected.platform.name}: ${t.injected.platform.does}.`
                      : "."}
                    {t.injected.platform?.optOut ? ` Opt out: ${t.injected.platform.optOut}.` : ""}
                  </div>
                ) : null}
              </td>
              <td title={GRANULARITY_HINT[t.granularity]}>{GRANULARITY[t.granularity]}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
