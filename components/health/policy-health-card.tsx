import Link from "next/link";
import type { PolicyKind } from "@/lib/admission/health/metrics";
import type { PolicyHealthRow } from "@/lib/api/health";
import { policyDecisionsHref } from "@/lib/health/links";
import { predictHref } from "@/lib/predict/links";
import { PolicyChecksTable } from "./policy-checks-table";

/**
 * An admission policy's checks as the apiserver counts them, per binding, flagged for failing
 * or slow expressions, for the policy's (or one binding's) detail page.
 */
export function PolicyHealthCard({
  kind,
  policy,
  rows,
  metricsError,
}: {
  kind: PolicyKind;
  policy: string;
  rows: PolicyHealthRow[];
  metricsError?: string;
}) {
  return (
    <section className="panel health-card" aria-labelledby="policy-health-h">
      <div className="health-card-head">
        <h2 id="policy-health-h">Health</h2>
        <span className="spacer" />
        <Link href={policyDecisionsHref(policy, kind)}>decisions</Link>
        <Link href={predictHref({ source: kind, configuration: policy, name: "" })}>predict</Link>
      </div>
      {metricsError ? <p className="bad">{metricsError}</p> : null}
      {rows.length === 0 ? (
        <p className="muted" data-testid="policy-health-empty">
          {kind === "MutatingAdmissionPolicy"
            ? "The apiserver has evaluated no mutation of this policy since it started (it counts each mutation expression it runs)."
            : "The apiserver has counted no checks of this policy since it started (it counts denials, warnings, audits and errors, not clean admits)."}
        </p>
      ) : (
        <PolicyChecksTable rows={rows} page={false} aria-label="Checks by binding" />
      )}
    </section>
  );
}
