import Link from "next/link";
import type { PolicyHealthRow } from "@/lib/queries/health";
import { policyDecisionsHref, PREDICT_HREF } from "@/lib/health/links";
import { PolicyChecksTable } from "./policy-checks-table";

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
        <PolicyChecksTable rows={rows} page={false} aria-label="Checks by binding" />
      )}
    </section>
  );
}
