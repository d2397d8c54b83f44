import Link from "next/link";
import { StaticBadge } from "@/components/outside-api/static-badge";
import type { PolicyHealthRow } from "@/lib/api/health";
import { hookHref } from "@/lib/namespaces/links";
import {
  healthHref,
  policyBindingHref,
  policyDecisionsHref,
  policyHealthRowId,
  policyHref,
} from "@/lib/health/links";
import { bucketText } from "@/lib/admission/health/health";
import { ReasonList } from "./reason-list";

const pairs = (r: Record<string, number>) =>
  Object.entries(r)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ") || "—";

const SHORT = { ValidatingAdmissionPolicy: "Validating", MutatingAdmissionPolicy: "Mutating" };

/**
 * Admission policy bindings as the apiserver counts their expressions, worst first, with the
 * reasons each is flagged. On the Health page (`page`) each row names its policy and is an
 * anchor; on a policy's page each row links to that anchor. Both link to the binding, its matrix
 * column and its decisions.
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
    <div className="table-scroll">
      <table className="data health-table" {...label}>
        <thead>
          <tr>
            <th scope="col">Health</th>
            {page ? <th scope="col">Policy</th> : null}
            <th scope="col">Binding</th>
            <th scope="col">Failure</th>
            <th
              scope="col"
              className="num"
              title="Validating: expressions that denied, warned, audited or failed. Mutating: every mutation expression evaluated. Since the apiserver started."
            >
              Checks
            </th>
            <th scope="col" className="num" title="Failed evaluations since the apiserver started">
              Errors
            </th>
            <th scope="col">By error type</th>
            <th scope="col">By action</th>
            <th
              scope="col"
              title="The apiserver's buckets (0.5 µs, 1 ms, 10 ms, 100 ms, 1 s) each quantile falls in"
            >
              Time per expression
            </th>
            <th scope="col" className="health-why">
              Why
            </th>
            <th scope="col">Links</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((p) => {
            const id = policyHealthRowId(p.kind, p.policy, p.binding);
            return (
              <tr
                key={`${p.kind}/${p.policy}/${p.binding}`}
                id={page ? id : undefined}
                data-testid={`policy-health-${p.kind}-${p.binding}`}
                data-severity={p.severity}
              >
                <td>
                  <span className={`sev sev-${p.severity === "ok" ? "info" : p.severity}`}>
                    {p.severity}
                  </span>
                </td>
                {page ? (
                  <td>
                    <span className="muted">{SHORT[p.kind]}</span>{" "}
                    {p.exists === false ? (
                      <>
                        {p.policy} <span className="muted">(deleted)</span>
                      </>
                    ) : (
                      <>
                        <Link href={policyHref(p.kind, p.policy)}>{p.policy}</Link>{" "}
                        <StaticBadge origin={p.origin} withFile={false} />
                      </>
                    )}
                  </td>
                ) : null}
                <td className="mono">
                  {p.exists === false ? (
                    p.binding
                  ) : (
                    <Link href={policyBindingHref(p.kind, p.binding)}>{p.binding}</Link>
                  )}
                </td>
                <td>{p.failurePolicy ?? "—"}</td>
                <td className="num">
                  <div data-testid="policy-checks">{p.checks}</div>
                  {p.window ? <div className="muted">{p.window.checks} in window</div> : null}
                </td>
                <td className="num">
                  <div data-testid="policy-errors">{p.evaluationErrors}</div>
                  {p.window ? (
                    <div className="muted">{p.window.evaluationErrors} in window</div>
                  ) : null}
                </td>
                <td>{pairs(p.errors)}</td>
                <td>{pairs(p.byAction)}</td>
                <td
                  className="mono"
                  data-testid="policy-latency"
                  title={
                    p.latency.over === "window" ? "in the window" : "since the apiserver started"
                  }
                >
                  {(["p50", "p90", "p99"] as const).map((q) => (
                    <div key={q}>
                      <span className="muted">{q}</span> {bucketText(p.latencyBuckets[q])}
                    </div>
                  ))}
                </td>
                <td className="health-why">
                  <ReasonList reasons={p.reasons} />
                </td>
                <td>
                  <div className="links">
                    {page ? null : <Link href={healthHref(id)}>on the Health page</Link>}
                    <Link href={policyDecisionsHref(p.policy, p.kind)}>decisions</Link>
                    {p.exists === false ? null : (
                      <Link
                        href={hookHref({
                          source: p.kind,
                          configuration: p.policy,
                          name: p.binding,
                        })}
                      >
                        matrix
                      </Link>
                    )}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
