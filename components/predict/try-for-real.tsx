"use client";

import { useMemo, useState } from "react";
import type { CompiledSnapshot } from "@/lib/admission/matching/compile";
import { predict } from "@/lib/admission/prediction/predict";
import { reportOf } from "@/lib/admission/report/predict-report";
import { compareVerdict, dryRunHooks } from "@/lib/predict/compare";
import { AuditedCalls } from "./audited-calls";
import { Comparisons } from "./comparisons";
import type { PagePrediction } from "@/lib/predict/page-request";
import type { PredictPageState } from "@/lib/predict/page-state";
import { dryRunRequest } from "@/lib/queries/predict";
import type { DryRunVerdict } from "@/lib/api/predict";

type Ok = Extract<PagePrediction, { ok: true }>;

/** Sends the request as a server-side dry run as the tab's identity; the verdict beside the prediction. */
export function TryForReal({
  context,
  result,
  state,
  compiled,
}: {
  context: string;
  result: Ok;
  state: PredictPageState;
  compiled: CompiledSnapshot;
}) {
  // The verdict, for the request it was sent for and the admission state it is compared with.
  const [verdict, setVerdict] = useState<
    { verdict: DryRunVerdict; for: string; compiled: CompiledSnapshot } | undefined
  >();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const r = result.request;
  const signature = JSON.stringify(state);
  // A dry run is a request with dryRun set: predict that one, so sideEffects count.
  const dry = useMemo(
    () =>
      reportOf(
        predict({ ...r, dryRun: true }, compiled),
        { ...result.report.request, dryRun: true },
        [],
      ),
    [r, compiled, result.report.request],
  );
  const hooks = useMemo(() => dryRunHooks(dry, compiled), [dry, compiled]);
  const refusing = hooks.filter((h) => h.effect === "refuses");
  const sameRequest = verdict !== undefined && verdict.for === signature;
  const current = sameRequest && verdict.compiled === compiled ? verdict.verdict : undefined;
  // The state the page predicts from was read again and changed since: comparing that verdict
  // with the new prediction would blame the prediction for a change in the cluster.
  const outdated = sameRequest && verdict.compiled !== compiled;
  const comparisons = current ? compareVerdict(dry, current) : [];
  const differentUser =
    state.user !== "" ? `The dry run runs as your own identity, not as ${state.user}.` : "";

  const send = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const v = await dryRunRequest({
        operation: r.operation,
        group: r.group,
        version: r.version,
        resource: r.resource,
        subresource: r.subresource,
        namespace: result.resolved.namespaced ? (r.namespace ?? "") : "",
        name: r.name ?? "",
        object: r.operation === "DELETE" ? null : ((r.object as Record<string, unknown>) ?? null),
      });
      setVerdict({ verdict: v, for: signature, compiled });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel" aria-label="Try it for real">
      <h2>
        Try it for real{" "}
        <span className="hint">a server-side dry run (dryRun=All) as your identity</span>
      </h2>
      <p className="hint">
        Admission runs in full and nothing is stored. Webhooks are called with dryRun: true — only
        those declaring sideEffects None or NoneOnDryRun; the apiserver refuses a dry run that
        reaches any other. {differentUser}
      </p>
      {refusing.length ? (
        <ul className="findings" aria-label="Hooks a dry run cannot call">
          {refusing.map((h) => (
            <li key={h.key} className="warn">
              <span className="mono">{h.name}</span> (sideEffects {h.sideEffects}): a dry run is
              refused here instead of calling it
            </li>
          ))}
        </ul>
      ) : null}
      <div className="actions">
        <button
          type="button"
          className="button"
          onClick={send}
          disabled={busy || r.operation === "CONNECT"}
        >
          {busy ? "Sending…" : "Try it for real"}
        </button>
        {r.operation === "CONNECT" ? (
          <span className="hint">CONNECT has no dry run: it would run for real.</span>
        ) : null}
      </div>
      {outdated ? (
        <p className="hint" data-testid="dry-run-outdated">
          The admission state changed since the last dry run: try it again to compare.
        </p>
      ) : null}
      {error ? (
        <p className="alert" role="alert">
          {error}
        </p>
      ) : null}
      {current ? (
        <div className="verdict-grid" data-testid="dry-run">
          <div>
            <h3>The apiserver</h3>
            <p
              data-testid="dry-run-outcome"
              className={current.outcome === "allowed" ? "good" : "bad"}
            >
              {current.outcome === "allowed"
                ? "Allowed"
                : current.outcome === "denied"
                  ? `Denied (${current.status} ${current.reason})`
                  : current.outcome === "error"
                    ? `Error (${current.status} ${current.reason})`
                    : "Not sent"}
            </p>
            {"message" in current ? (
              <pre className="cel" data-testid="dry-run-message">
                {current.message}
              </pre>
            ) : null}
            {current.warnings.length ? (
              <ul aria-label="Warnings" className="hint">
                {current.warnings.map((w, i) => (
                  <li key={i}>Warning: {w}</li>
                ))}
              </ul>
            ) : null}
          </div>
          <div>
            <h3>The prediction (for the dry run)</h3>
            <p
              className={
                dry.failure || dry.rejectedBeforeHooks || dry.podSecurity?.rejects ? "bad" : "good"
              }
              data-testid="dry-run-predicted"
            >
              {dry.rejectedBeforeHooks
                ? `${dry.rejectedBeforeHooks.plugin === "routing" ? "Refused before admission" : "Rejected"}: ${dry.rejectedBeforeHooks.status} ${dry.rejectedBeforeHooks.message}`
                : dry.failure
                  ? `Rejected: ${dry.failure.message}`
                  : dry.podSecurity?.rejects && dry.podSecurity.rejection
                    ? `Rejected by PodSecurity: ${dry.podSecurity.rejection.status} ${dry.podSecurity.rejection.message}`
                    : "Admitted as far as matching decides"}
            </p>
            <p className="hint">{dry.calls.length} calls predicted</p>
          </div>
          <Comparisons label="Comparison" items={comparisons} agreeId="agrees" />
        </div>
      ) : null}
      {current && "auditID" in current ? (
        <AuditedCalls context={context} auditID={current.auditID} dry={dry} />
      ) : null}
    </section>
  );
}
