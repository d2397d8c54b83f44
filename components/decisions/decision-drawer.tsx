"use client";

import { useEffect, useMemo } from "react";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { decisionDetailQuery } from "@/lib/queries/decisions";
import { isPolicyKind, KIND_LABELS } from "@/lib/decisions/outcomes";
import { deciderLinks, type DeciderLinks } from "@/lib/decisions/links";
import { objectRefText } from "@/lib/decisions/object-ref";
import { requestPrediction } from "@/lib/decisions/predict-request";
import { impersonationNote } from "@/lib/decisions/user-label";
import { visibleText } from "@/lib/decisions/visible-text";
import { ErrorBox } from "@/components/ui/error-box";
import { OutcomeBadge } from "./outcome-badge";
import { SaveDecisionAsTest } from "@/components/admission-tests/save-decision";

/** JSON text indented, bidirectional controls written as the JSON escapes they stand for. */
function pretty(text: string): string {
  try {
    return visibleText(JSON.stringify(JSON.parse(text), null, 2));
  } catch {
    return visibleText(text);
  }
}

/**
 * How long after a webhook call its span may still be on its way: the apiserver batches spans
 * and exports them every 5 s (OpenTelemetry's default), while its audit batch arrives within 1 s;
 * a busy apiserver has been seen to export a span over 30 s after the call.
 */
const SPAN_WAIT_MS = 60_000;

/** Reads of a decision while its span is awaited: SPAN_WAIT_MS at most, every 2 s. */
const SPAN_READS = SPAN_WAIT_MS / 2_000;

/**
 * A webhook call whose span has not arrived yet but still may: made less than SPAN_WAIT_MS ago by
 * this browser's clock (an apiserver clock running ahead by as much counts as made now, not as
 * awaited for hours).
 */
function awaitingSpan(d: { kind: string; time: number; tracedMs?: number[] }): boolean {
  const age = Date.now() - d.time;
  return (
    d.kind.endsWith("webhook") &&
    !(d.tracedMs && d.tracedMs.length > 0) &&
    age > -SPAN_WAIT_MS &&
    age < SPAN_WAIT_MS
  );
}

/** One decision: the parsed facts, the patch, and the audit event as stored (text only). */
export function DecisionDrawer({
  context,
  id,
  onClose,
}: {
  context: string;
  id: number;
  onClose(): void;
}) {
  const detail = useQuery({
    ...decisionDetailQuery(context, id),
    // A fresh call's span follows its audit event by a few seconds: read again until it is here.
    refetchInterval: (q) => {
      const d = q.state.data?.decision;
      return d && awaitingSpan(d) && q.state.dataUpdateCount <= SPAN_READS ? 2_000 : false;
    },
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);
  const d = detail.data?.decision;
  const links: DeciderLinks = d ? deciderLinks(d) : { decisions: "" };
  const raw = detail.data?.rawEvent;
  const prediction = useMemo(() => (d ? requestPrediction(d.request, raw) : undefined), [d, raw]);
  const impersonation = d ? impersonationNote(d.request) : undefined;
  return (
    <aside className="drawer panel" role="dialog" aria-label="Decision detail">
      <div className="page-head">
        <h2>Decision {id}</h2>
        <span className="spacer" />
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {detail.error ? <ErrorBox error={detail.error} /> : null}
      {!d ? (
        detail.error ? null : (
          <p className="muted">Reading…</p>
        )
      ) : (
        <>
          <dl className="facts">
            <dt>Outcome</dt>
            <dd>
              <OutcomeBadge outcome={d.outcome} />
              {d.code !== undefined ? <span className="badge"> HTTP {d.code}</span> : null}
            </dd>
            <dt>
              {d.kind === "pod-security" ? "Plugin" : isPolicyKind(d.kind) ? "Policy" : "Webhook"}
            </dt>
            <dd>
              {links.decider ? (
                <Link className="mono" href={links.decider}>
                  {d.hook}
                </Link>
              ) : (
                <span className="mono">{d.hook || "(unnamed)"}</span>
              )}
              {d.hook ? (
                <>
                  {" · "}
                  <Link href={links.decisions}>all its decisions</Link>
                </>
              ) : null}
            </dd>
            <dt>Kind</dt>
            <dd>{KIND_LABELS[d.kind]}</dd>
            {d.configuration ? (
              <>
                <dt>{isPolicyKind(d.kind) ? "Binding" : "Configuration"}</dt>
                <dd className="mono">
                  {links.configuration ? (
                    <Link href={links.configuration}>{d.configuration}</Link>
                  ) : (
                    d.configuration
                  )}
                </dd>
              </>
            ) : links.findConfiguration ? (
              <>
                <dt>Configuration</dt>
                <dd>
                  <span className="muted">not named for a denial or failed call · </span>
                  <Link href={links.findConfiguration}>find the webhook in the list</Link>
                </dd>
              </>
            ) : null}
            {d.round !== undefined ? (
              <>
                <dt>Call</dt>
                <dd>
                  round {d.round}, index {d.index}
                </dd>
              </>
            ) : null}
            {d.message ? (
              <>
                <dt>Message</dt>
                <dd className="pre-line">{visibleText(d.message)}</dd>
              </>
            ) : null}
            <dt>Time</dt>
            <dd className="mono">{new Date(d.time).toISOString()}</dd>
            <dt>Request</dt>
            <dd className="mono">
              {d.request.verb} {visibleText(d.request.requestURI)}
              {d.request.dryRun ? " (dry run)" : ""}
            </dd>
            <dt>Object</dt>
            <dd className="mono">
              {[d.request.group || "core", d.request.version, d.request.resource]
                .filter(Boolean)
                .join("/")}
              {d.request.subresource ? `/${d.request.subresource}` : ""} {objectRefText(d.request)}
            </dd>
            <dt>User</dt>
            <dd className="mono">
              {visibleText(d.request.user)}
              {d.request.groups.length > 0 ? (
                <span className="muted"> ({visibleText(d.request.groups.join(", "))})</span>
              ) : null}
              {impersonation !== undefined ? (
                <span data-testid="impersonated-by"> {impersonation}</span>
              ) : null}
            </dd>
            {prediction ? (
              <>
                <dt>Predict</dt>
                <dd>
                  <Link href={prediction.href}>predict this request</Link>{" "}
                  <span className="muted">
                    {prediction.objectKnown
                      ? "as this user, with the object the audit event holds"
                      : "as this user; the audit event holds no object (Metadata level), so its labels are not known to the prediction"}
                  </span>
                </dd>
              </>
            ) : null}
            {prediction ? (
              <>
                <dt>Test</dt>
                <dd>
                  <SaveDecisionAsTest context={context} id={id} />
                </dd>
              </>
            ) : null}
            <dt>Response</dt>
            <dd>{d.request.code ?? "—"}</dd>
            {d.kind.endsWith("webhook") ? (
              <>
                <dt>Call took</dt>
                <dd data-testid="traced-duration">
                  {d.tracedMs && d.tracedMs.length > 0 ? (
                    <>
                      {d.tracedMs.map((ms) => `${ms.toFixed(1)} ms`).join(", ")}{" "}
                      <span className="muted">(the apiserver&apos;s trace of this call)</span>
                    </>
                  ) : awaitingSpan(d) ? (
                    <span className="muted">
                      no span yet — the apiserver exports its spans every few seconds
                    </span>
                  ) : (
                    <span className="muted">
                      not traced — the apiserver&apos;s spans arrive when it exports traces to the
                      dashboard (README, per-call webhook latency)
                    </span>
                  )}
                </dd>
              </>
            ) : null}
            {Object.keys(d.request.latencies).length > 0 ? (
              <>
                <dt>Phase latencies</dt>
                <dd className="mono">
                  {Object.entries(d.request.latencies)
                    .map(([k, v]) => `${k} ${v}`)
                    .join(" · ")}
                  <div className="hint">
                    Per admission phase (all hooks of a kind together), written for requests over
                    500 ms: not this hook&apos;s own latency.
                  </div>
                </dd>
              </>
            ) : null}
            <dt>Audit ID</dt>
            <dd className="mono">
              <Link href={`/decisions?auditID=${encodeURIComponent(d.auditID)}`}>{d.auditID}</Link>{" "}
              <span className="muted">
                ({d.stage}; the link lists every decision of this request)
              </span>
            </dd>
          </dl>
          {d.patch ? (
            <>
              <h3>Patch</h3>
              <pre className="cel">{pretty(d.patch)}</pre>
            </>
          ) : null}
          <h3>Audit event</h3>
          <pre className="cel raw" data-testid="raw-event">
            {pretty(detail.data?.rawEvent ?? "")}
          </pre>
        </>
      )}
    </aside>
  );
}
