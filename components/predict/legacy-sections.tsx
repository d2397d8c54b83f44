"use client";

import type { LegacySectionReport } from "@/lib/admission/historical/legacy-hooks";

/**
 * The historical hooks' part of a prediction: one labelled section per kind (v1beta1 mutating,
 * v1beta1 validating, external admission hooks), each with the hooks the request reaches in order
 * and every other one with why it is skipped.
 */
export function LegacySections({ sections }: { sections: readonly LegacySectionReport[] }) {
  if (sections.length === 0) return null;
  return (
    <section className="panel" aria-label="Historical hooks">
      <h2>Historical hooks</h2>
      <p className="hint">
        Configurations of older Kubernetes versions, matched as the apiserver of their time did
        (v1beta1 defaults; external hooks on their rules alone). They are not part of the calls
        above: a current apiserver does not call them.
      </p>
      {sections.map((s) => (
        <div
          key={s.id}
          className="stack"
          role="group"
          aria-label={s.title}
          data-testid={`legacy-${s.id}`}
        >
          <h3>{s.title}</h3>
          <p className="hint">{s.note}</p>
          {s.calls.length === 0 ? (
            <p className="muted">None of them is called for this request.</p>
          ) : (
            <table className="data calls" aria-label={`${s.title}: calls`}>
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
                </tr>
              </thead>
              <tbody>
                {s.calls.map((c) => (
                  <tr key={`${c.round}/${c.key}`} data-testid={`legacy-call-${c.name}`}>
                    <td className="num">
                      {c.order + 1}
                      {c.round === 1 ? " (round 1, possible)" : ""}
                    </td>
                    <td className="mono">{c.name}</td>
                    <td className="mono">
                      {c.configuration} <span className="muted">#{c.position + 1}</span>
                    </td>
                    <td>{c.failurePolicy}</td>
                    <td>{c.matchPolicy}</td>
                    <td className="num">
                      {c.timeoutSeconds === null ? "—" : `${c.timeoutSeconds}s`}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {s.skips.length > 0 ? (
            <ul className="findings" aria-label={`${s.title}: not called`}>
              {s.skips.map((x) => (
                <li key={x.key} data-testid={`legacy-skip-${x.name}`} data-code={x.code}>
                  <span className="mono">{x.name}</span>{" "}
                  <span className="hint">in {x.configuration}</span>
                  <div className="msg">{x.message}</div>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ))}
    </section>
  );
}
