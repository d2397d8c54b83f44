import Link from "next/link";
import type { PolicyHealthRow } from "@/lib/queries/health";
import { hookHref } from "@/lib/namespaces/links";
import { healthHref, policyHealthRowId } from "@/lib/health/links";
import { msText } from "./probe-text";

const pairs = (r: Record<string, number>) =>
  Object.entries(r)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ") || "—";

/**
 * Validating admission policy checks per binding, as the apiserver counts them. On the Health
 * page (`page`) each row names its policy and is an anchor; on a policy's page each row links to
 * that anchor. Both link to the binding's matrix column.
 */
export function PolicyChecksTable({
  rows,
  page,
  ...label
}: {
  rows: PolicyHealthRow[];
  page: boolean;
} & ({ "aria-label": string } | { "aria-labelledby": string })) {
  return (
    <table className="data" {...label}>
      <thead>
        <tr>
          {page ? <th scope="col">Policy</th> : null}
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
        {rows.map((p) => {
          const id = policyHealthRowId(p.policy, p.binding);
          return (
            <tr
              key={`${p.policy}/${p.binding}`}
              id={page ? id : undefined}
              data-testid={`policy-health-${p.binding}`}
            >
              {page ? (
                <td>
                  {p.exists === false ? (
                    <>
                      {p.policy} <span className="muted">(deleted)</span>
                    </>
                  ) : (
                    <Link
                      href={`/policies/validatingadmissionpolicies/${encodeURIComponent(p.policy)}`}
                    >
                      {p.policy}
                    </Link>
                  )}
                </td>
              ) : null}
              <td className="mono">{p.binding}</td>
              <td className="num">{p.checks}</td>
              <td>{pairs(p.byAction)}</td>
              <td>{pairs(p.errors)}</td>
              <td className="num">{msText(p.p99)}</td>
              <td className="links">
                {page ? null : <Link href={healthHref(id)}>on the Health page</Link>}
                {p.exists === false ? null : (
                  <Link
                    href={hookHref({
                      source: "ValidatingAdmissionPolicy",
                      configuration: p.policy,
                      name: p.binding,
                    })}
                  >
                    matrix
                  </Link>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
