import Link from "next/link";
import type { HealthRow } from "@/lib/api/health";
import { healthHref, healthRowId, hookDecisionsHref } from "@/lib/health/links";
import { predictHref } from "@/lib/predict/links";
import { LatencySpark } from "./latency-spark";
import { probeText, msText } from "./probe-text";
import { ReasonList } from "./reason-list";
import { TracedCalls } from "./traced-calls";

/**
 * One hook's health as the Health page shows it, for a detail page: latency against the timeout,
 * counts, the probe, the CA, why it is flagged, and where to look next.
 */
export function HookHealthCard({
  row,
  exemptionsHref,
  markers,
}: {
  row: HealthRow;
  /** Changes of the hook's configuration, marked on its latency line. */
  markers?: ReadonlyArray<{ id: number; time: number; title: string }>;
  /** The hook's column of the exemption matrix (webhooks only). */
  exemptionsHref?: string;
}) {
  const probe = probeText(row.probe);
  const counts = row.window ?? row.total;
  const over =
    row.latency.over === "window"
      ? "in the window"
      : row.latency.over === "since-start"
        ? "since the apiserver started"
        : "";
  return (
    <div
      className="health-card"
      role="group"
      aria-label={`Health of ${row.hook}`}
      data-severity={row.severity}
    >
      <div className="health-card-head">
        <span className={`sev sev-${row.severity === "ok" ? "info" : row.severity}`}>
          {row.severity}
        </span>
        <strong>Health</strong>
        <span className="spacer" />
        <Link href={healthHref(healthRowId(row.source, row.configuration, row.index))}>
          on the Health page
        </Link>
        {row.source !== "CustomResourceDefinition" ? (
          <Link href={hookDecisionsHref(row.hook, row.source)}>decisions</Link>
        ) : null}
        {exemptionsHref ? <Link href={exemptionsHref}>matrix</Link> : null}
        <Link href={predictHref({ ...row, name: row.hook })}>predict</Link>
      </div>
      <dl className="facts">
        <dt>Latency p50 / p90 / p99</dt>
        <dd>
          <span className="mono" data-testid="health-latency">
            {msText(row.latency.p50)} / {msText(row.latency.p90)} / {msText(row.latency.p99)} ms
          </span>{" "}
          <span className="muted">
            of a {row.timeoutSeconds} s timeout
            {row.latency.calls > 0 ? `, ${row.latency.calls} calls ${over}` : ", no calls yet"}
          </span>
          <div>
            <LatencySpark
              points={row.spark}
              timeoutSeconds={row.timeoutSeconds}
              span={row.sparkSpan}
              markers={markers}
              label={`p99 latency per 15 s against a ${row.timeoutSeconds} s timeout`}
            />
          </div>
        </dd>
        <dt>Per call (traces)</dt>
        <dd>
          <TracedCalls traces={row.traces} timeoutSeconds={row.timeoutSeconds} showRecent />
        </dd>
        <dt>Calls · errors · fail-open</dt>
        <dd data-testid="health-counts">
          {counts?.calls ?? 0} · {counts?.errors ?? 0} · {counts?.failOpen ?? 0}{" "}
          <span className="muted">
            {row.window ? "in the window" : counts ? "since the apiserver started" : ""}
          </span>
        </dd>
        <dt>Probe from here</dt>
        <dd className={probe.tone} data-testid="health-probe">
          {probe.text}
        </dd>
        <dt>CA days left</dt>
        <dd>{row.caDaysLeft ?? "—"}</dd>
        <dt>Why</dt>
        <dd>
          <ReasonList reasons={row.reasons} />
        </dd>
      </dl>
    </div>
  );
}
