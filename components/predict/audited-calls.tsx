"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { PredictReport } from "@/lib/admission/report/predict-report";
import { auditedMutatingCalls, compareAudited } from "@/lib/predict/compare";
import { auditGaveUp, decisionsForQuery } from "@/lib/queries/predict";
import { Comparisons } from "./comparisons";

/**
 * The mutating webhooks the apiserver called for the dry run, from its audit event (found by the
 * Audit-ID the dashboard gave the request), against the prediction.
 */
export function AuditedCalls({
  context,
  auditID,
  dry,
}: {
  context: string;
  auditID: string;
  dry: PredictReport;
}) {
  const options = decisionsForQuery(context, auditID);
  const q = useQuery(options);
  const polls = useQueryClient().getQueryState(options.queryKey)?.dataUpdateCount ?? 0;
  const decisions = q.data?.items ?? [];
  let body;
  if (q.error) body = <p className="hint">The audit feed cannot be read here: {q.error.message}</p>;
  else if (decisions.length === 0)
    body = (
      <p className="hint">
        {auditGaveUp(polls)
          ? "No webhook or policy decision arrived for this request. Either the apiserver called no webhook (its audit event then records none), or its audit webhook is not pointed at the dashboard."
          : "Waiting for the apiserver's audit event…"}
      </p>
    );
  else {
    const calls = auditedMutatingCalls(decisions);
    body = (
      <>
        <ol className="mono" aria-label="Mutating webhooks called">
          {calls.map((o) => (
            <li key={`${o.round}/${o.index}`} data-testid="audited-call">
              {o.hook} <span className="hint">round {o.round}</span>
              {o.outcome === "mutated" ? <span className="badge">mutated</span> : null}
              {o.outcome === "failed-open" ? <span className="badge">failed open</span> : null}
            </li>
          ))}
        </ol>
        {calls.length === 0 ? <p className="hint">No mutating webhook was called.</p> : null}
        <Comparisons
          label="Audit comparison"
          items={compareAudited(dry, decisions)}
          agreeId="audit-agrees"
        />
        <p className="hint">
          Validating webhooks are not named in audit events (only those that failed open), so they
          are checked by the verdict alone.
        </p>
      </>
    );
  }
  return (
    <div className="audited" data-testid="audited">
      <h3>What the apiserver called (its audit event)</h3>
      {body}
    </div>
  );
}
