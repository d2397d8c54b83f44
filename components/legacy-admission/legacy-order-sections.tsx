"use client";

import type { LegacyOrderSection } from "@/lib/admission/historical/legacy-order";

/**
 * The historical hooks in call order, one labelled section per kind (v1beta1 mutating, v1beta1
 * validating, external admission hooks), with each hook's effective failure policy, match policy
 * and timeout. Shared by the v1beta1 page and the call order page.
 */
export function LegacyOrderSections({
  title,
  sections,
}: {
  title: string;
  sections: readonly LegacyOrderSection[];
}) {
  if (sections.length === 0) return null;
  return (
    <section className="panel" aria-label={title}>
      <h2>{title}</h2>
      {sections.map((s) => (
        <table key={s.id} className="data" aria-label={s.title} data-testid={`order-${s.id}`}>
          <caption>
            {s.title} <span className="hint">{s.note}</span>
          </caption>
          <thead>
            <tr>
              <th scope="col" className="num">
                #
              </th>
              <th scope="col">Hook</th>
              <th scope="col">Configuration</th>
              <th scope="col">Failure policy</th>
              <th scope="col">Match policy</th>
              <th scope="col" className="num">
                Timeout
              </th>
              <th scope="col">Side effects</th>
            </tr>
          </thead>
          <tbody>
            {s.entries.map((e) => (
              <tr key={e.key} data-testid={`order-row-${e.name}`}>
                <td className="num">{e.index + 1}</td>
                <td className="mono">{e.name}</td>
                <td className="mono">
                  {e.configuration} <span className="muted">#{e.position + 1}</span>
                </td>
                <td>{e.failurePolicy}</td>
                <td>{e.matchPolicy}</td>
                <td className="num">
                  {s.id === "external-admission-hooks" ? "—" : `${e.timeoutSeconds}s`}
                </td>
                <td>{s.id === "external-admission-hooks" ? "—" : e.sideEffects}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </section>
  );
}
