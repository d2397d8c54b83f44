import Link from "next/link";
import type { PolicyHealthRow } from "@/lib/queries/health";
import { hookHref } from "@/lib/namespaces/links";
import {
  healthHref,
  policyDecisionsHref,
  policyHealthRowId,
  PREDICT_HREF,
} from "@/lib/health/links";
import { msText } from "./probe-text";

const pairs = (r: Record<string, number>) =>
  Object.entries(r)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ") || "—";

/**
 * A validating admission policy's checks as the apiserver counts them, per binding, for the
 * policy's (or one binding's) detail page.
 */
export function PolicyHealthCard({
  policy,
  rows,
  metricsError,
}: {
  policy: string;
  rows: PolicyHealthRow[];
  metricsError?: string;
}) {
  return (
    <section className="panel health-card" aria-labelledby="policy-health-h">
      <div className="health-card-head">
        <h2 id="policy-health-h">Health</h2>
        <span className="spacer" />
        <Link href={policyDecisionsHref(policy)}>decisions</Link>
        <Link href={PREDICT_HREF}>predict</Link>
      </div>
      {metricsError ? <p className="bad">{metricsError}</p> : null}
      {rows.length === 0 ? (
        <p className="muted" data-testid="policy-health-empty">
          The apiserver has counted no checks of this policy since it started.
        </p>
      ) : (
        <table className="data" aria-label="Checks by binding">
          <thead>
            <tr>
              <th scope="col">Binding</th>
              <th scope="col" className="num">
                Checks
              </th>
              <th scope="col">By action</th>
              <th scope="col">Errors</th>
              <th scope="col" className="num">
                p99 ms
              </th>
              <th scope="col">Links</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((p) => (
              <tr key={p.binding} data-testid={`policy-health-${p.binding}`}>
                <td className="mono">{p.binding}</td>
                <td className="num">{p.checks}</td>
                <td>{pairs(p.byAction)}</td>
                <td>{pairs(p.errors)}</td>
                <td className="num">{msText(p.p99)}</td>
                <td className="links">
                  <Link href={healthHref(policyHealthRowId(p.policy, p.binding))}>
                    on the Health page
                  </Link>
                  <Link
                    href={hookHref({
                      source: "ValidatingAdmissionPolicy",
                      configuration: p.policy,
                      name: p.binding,
                    })}
                  >
                    matrix
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
