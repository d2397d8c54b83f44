"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTabContext } from "@/components/layout/tab-context";
import { ErrorBox } from "@/components/ui/error-box";
import { healthQuery } from "@/lib/queries/health";
import type { HealthReport, HealthRow } from "@/lib/api/health";
import { hookHref } from "@/lib/namespaces/links";
import type { HookSourceKind } from "@/lib/admission/model/hook-identity";
import { healthRowId, hookDecisionsHref } from "@/lib/health/links";
import { predictHref } from "@/lib/predict/links";
import { LatencySpark } from "./latency-spark";
import { msText as ms, probeText } from "./probe-text";
import { ReasonList } from "./reason-list";
import { TracedCalls } from "./traced-calls";
import { PolicyChecksTable } from "./policy-checks-table";
import { useScrollToHash } from "./use-scroll-to-hash";
import { clockTime } from "@/lib/clock";
import { OutsideApiNotice } from "@/components/outside-api/outside-api-notice";
import { StaticBadge } from "@/components/outside-api/static-badge";

const RESOURCE_OF: Record<string, string> = {
  MutatingWebhookConfiguration: "mutatingwebhookconfigurations",
  ValidatingWebhookConfiguration: "validatingwebhookconfigurations",
};

function HookCell({ row }: { row: HealthRow }) {
  const resource = RESOURCE_OF[row.source];
  const short = row.source
    .replace("WebhookConfiguration", "")
    .replace("CustomResourceDefinition", "CRD conversion");
  return (
    <>
      <span className="muted">{short}</span>{" "}
      {resource ? (
        <Link href={`/webhooks/${resource}/${encodeURIComponent(row.configuration)}`}>
          {row.configuration}
        </Link>
      ) : (
        <span>{row.configuration}</span>
      )}{" "}
      <StaticBadge origin={row.origin} withFile={false} />
      {row.source !== "CustomResourceDefinition" ? <div className="mono">{row.hook}</div> : null}
      {resource ? (
        <div className="links">
          <Link href={hookDecisionsHref(row.hook, row.source)}>decisions</Link>
          <Link
            href={hookHref({
              source: row.source as HookSourceKind,
              configuration: row.configuration,
              name: row.hook,
            })}
          >
            matrix
          </Link>
          <Link href={predictHref({ ...row, name: row.hook })}>predict</Link>
        </div>
      ) : null}
    </>
  );
}

/** Whether the apiserver's traces arrive, so an empty "traces" column explains itself. */
function TraceStatus({ status }: { status: HealthReport["traces"] }) {
  if (status.error) return <p className="bad">Traces: {status.error}</p>;
  if (!status.listening)
    return (
      <p className="muted" data-testid="trace-status">
        Traces: no receiver (set PORTCULLIS_OTLP_LISTEN and point the apiserver&apos;s
        --tracing-config-file at it for per-call latency).
      </p>
    );
  return (
    <p className="muted" data-testid="trace-status">
      Traces: receiving on {status.listening} · {status.spans} webhook calls in {status.exports}{" "}
      exports
      {status.lastExportAt
        ? `, the last ${clockTime(status.lastExportAt)}`
        : " · nothing received yet"}
      {status.instances.length > 0 ? ` · from ${status.instances.join(", ")}` : ""}
    </p>
  );
}

/** Every hook, worst first: the apiserver's metrics, a probe from here, and the CA bundle. */
export function HealthPage() {
  const { context = "", error: contextError } = useTabContext();
  const report = useQuery({ ...healthQuery(context), enabled: context !== "" });
  const error = contextError ?? report.error;
  useScrollToHash(report.data !== undefined);
  if (error) {
    return (
      <>
        <h1>Health</h1>
        <ErrorBox error={error} />
      </>
    );
  }
  const r = report.data;
  if (!r) {
    return (
      <>
        <h1>Health</h1>
        <p className="muted" aria-busy="true">
          Reading the apiserver&apos;s metrics and probing backends…
        </p>
      </>
    );
  }
  const isFlagged = (x: { severity: string }) => x.severity !== "ok" && x.severity !== "info";
  const flagged = r.rows.filter(isFlagged).length;
  const policiesFlagged = r.policies.filter(isFlagged).length;
  return (
    <div className="stack">
      <div className="page-head">
        <h1>Health</h1>
        <span className="muted">
          {r.rows.length} hooks · {flagged} flagged · {r.policies.length} policy bindings ·{" "}
          {policiesFlagged} flagged · metrics read {clockTime(r.scrapedAt)}
          {r.windowSeconds > 0
            ? ` · window ${r.windowSeconds < 90 ? `${r.windowSeconds} s` : `${Math.round(r.windowSeconds / 60)} min`}`
            : " · window starts with the next scrape"}
        </span>
      </div>
      <OutsideApiNotice full />
      {r.metricsError ? <p className="bad">{r.metricsError}</p> : null}
      <TraceStatus status={r.traces} />
      {r.conversionError ? (
        <p className="muted">Conversion webhooks could not be listed: {r.conversionError}</p>
      ) : null}
      {r.rows.length === 0 && r.policies.length === 0 ? (
        <p className="muted">
          No admission webhooks or policies in this cluster, so nothing to watch. Create one from
          the <Link href="/webhooks">Webhooks</Link> or <Link href="/policies">Policies</Link> page.
        </p>
      ) : null}
      {r.rows.length === 0 && r.policies.length > 0 ? (
        <p className="muted">
          No admission webhooks or conversion webhooks in this cluster: only policies, below.
        </p>
      ) : null}
      {r.rows.length === 0 ? null : (
        <div className="table-scroll">
          <table className="data health-table health-hooks" aria-label="Hook health, worst first">
            <thead>
              <tr>
                <th scope="col">Health</th>
                <th scope="col">Hook</th>
                <th scope="col">Failure</th>
                <th scope="col" className="num">
                  Timeout
                </th>
                <th scope="col" className="num">
                  Calls
                </th>
                <th scope="col" className="num nowrap">
                  p50 / p90 / p99 ms
                </th>
                <th scope="col">p99 vs timeout</th>
                <th scope="col">Per call (traces)</th>
                <th scope="col" className="num">
                  Errors
                </th>
                <th scope="col" className="num">
                  Fail-open
                </th>
                <th scope="col" className="health-backend">
                  Backend (probe from here)
                </th>
                <th scope="col" className="num">
                  CA days
                </th>
                <th scope="col" className="health-why">
                  Why
                </th>
              </tr>
            </thead>
            <tbody>
              {r.rows.map((row) => {
                const probe = probeText(row.probe);
                const counts = row.window ?? row.total;
                return (
                  <tr
                    key={`${row.source}/${row.configuration}/${row.index}`}
                    id={healthRowId(row.source, row.configuration, row.index)}
                    data-testid={`health-${row.configuration}-${row.index}`}
                    data-severity={row.severity}
                  >
                    <td>
                      <span className={`sev sev-${row.severity === "ok" ? "info" : row.severity}`}>
                        {row.severity}
                      </span>
                    </td>
                    <td className="health-hook">
                      <HookCell row={row} />
                    </td>
                    <td>{row.failurePolicy}</td>
                    <td className="num">{row.timeoutSeconds} s</td>
                    <td
                      className="num"
                      title={row.window ? "in the window" : "since the apiserver started"}
                    >
                      {counts?.calls ?? 0}
                      {row.window && row.window.calls === 0 && (row.total?.calls ?? 0) > 0 ? (
                        <div className="muted">{row.total?.calls} since start</div>
                      ) : null}
                    </td>
                    <td className="num mono nowrap">
                      {ms(row.latency.p50)} / {ms(row.latency.p90)} / {ms(row.latency.p99)}
                    </td>
                    <td>
                      <LatencySpark
                        points={row.spark}
                        timeoutSeconds={row.timeoutSeconds}
                        label={`p99 latency per 15 s against a ${row.timeoutSeconds} s timeout`}
                      />
                    </td>
                    <td>
                      <TracedCalls traces={row.traces} timeoutSeconds={row.timeoutSeconds} />
                    </td>
                    <td className="num">{counts?.errors ?? 0}</td>
                    <td className="num">{counts?.failOpen ?? 0}</td>
                    <td className="health-backend">
                      <div className="mono">{row.backend}</div>
                      <div className={probe.tone}>{probe.text}</div>
                    </td>
                    <td className="num">{row.caDaysLeft ?? "—"}</td>
                    <td className="health-why">
                      <ReasonList reasons={row.reasons} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {r.policies.length > 0 ? (
        <section aria-labelledby="policies-h">
          <h2 id="policies-h">Admission policies</h2>
          <PolicyChecksTable rows={r.policies} page aria-labelledby="policies-h" />
          <p className="muted">
            Validating policies are counted when an expression denies, warns, audits or fails (the
            apiserver labels every denial invalid_error, so only errors that failurePolicy Ignore
            let through, compile errors and budget exhaustion count as errors here); mutating
            policies for every mutation expression evaluated. Times are per expression.
          </p>
        </section>
      ) : null}
      <p className="muted">
        Latency and counts are the apiserver&apos;s own (its /metrics, read every 15 s with this
        context&apos;s credentials); they are keyed by hook name, so same-named hooks share them.
        Probes are a TLS handshake from where the dashboard runs, verified with each hook&apos;s
        caBundle and the name the apiserver uses. Per-call latency comes from the apiserver&apos;s
        own span of each call (its trace export), which names the configuration too.
      </p>
    </div>
  );
}
