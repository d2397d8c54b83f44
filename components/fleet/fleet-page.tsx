"use client";

import { Fragment, useMemo, useState } from "react";
import { useTabContext } from "@/components/layout/tab-context";
import type { FleetDecisions, FleetRow, FoundBy } from "@/lib/api/fleet";
import { onlyDiffering, type DriftEntry } from "@/lib/admission/fleet/drift";
import { assumedMinorText } from "@/lib/admission/model/kubernetes-minor";
import { driftOf, openHref, rowName } from "@/lib/fleet/state";
import { useFleet } from "./use-fleet";

function FoundByCell({ foundBy }: { foundBy: readonly FoundBy[] }) {
  return (
    <>
      {foundBy.map((f) =>
        f.via === "kubeconfig" ? (
          <div key="kubeconfig" className="muted">
            kubeconfig
          </div>
        ) : (
          <div
            key={`${f.context}/${f.namespace}/${f.name}`}
            className="muted"
            title={[
              f.manager ? `cluster manager ${f.manager}` : "",
              f.reportedVersion ? `reports Kubernetes ${f.reportedVersion}` : "",
            ]
              .filter(Boolean)
              .join("; ")}
          >
            ClusterProfile {f.namespace}/{f.name} in {f.context}
          </div>
        ),
      )}
    </>
  );
}

function Decisions({ d }: { d: FleetDecisions }) {
  if (d.state === "none")
    return (
      <span className="muted" title={d.why}>
        —
      </span>
    );
  return (
    <span data-testid="fleet-decisions">
      <span className={d.denials > 0 ? "warn" : ""}>{d.denials}</span> /{" "}
      <span className={d.errors > 0 ? "bad" : ""}>{d.errors}</span> /{" "}
      <span className={d.failOpens > 0 ? "bad" : ""}>{d.failOpens}</span>
    </span>
  );
}

function List({ items, empty = "0" }: { items: readonly string[]; empty?: string }) {
  if (items.length === 0) return <span className="muted">{empty}</span>;
  return (
    <span className="bad" title={items.join("\n")}>
      {items.length}
    </span>
  );
}

/** Columns after the cluster, server and found-by ones. */
const DATA_COLUMNS = 9;

function ClusterRow({ r }: { r: FleetRow }) {
  const name = rowName(r);
  const s = r.row;
  return (
    <tr data-testid="fleet-row" data-cluster={name} data-state={s.state}>
      <td className="nowrap">
        <strong>{name}</strong>
        {r.context && (
          <div>
            <a href={openHref(r.context)} target="_blank" rel="noopener" data-testid="fleet-open">
              open webhooks ↗
            </a>
          </div>
        )}
      </td>
      <td className="mono" style={{ fontSize: 11 }}>
        {r.server || <span className="muted">—</span>}
        <FoundByCell foundBy={r.foundBy} />
      </td>
      {s.state === "reading" && (
        <td colSpan={DATA_COLUMNS} className="muted">
          reading…
        </td>
      )}
      {s.state === "no-credentials" && (
        <td colSpan={DATA_COLUMNS} data-testid="fleet-row-error">
          <span className="badge static">no credentials</span> {s.message}
        </td>
      )}
      {s.state === "failed" && (
        <td colSpan={DATA_COLUMNS} data-testid="fleet-row-error">
          <span className="badge static">
            {s.timedOut ? "no answer" : `${s.status} ${s.reason}`}
          </span>{" "}
          {s.message} <span className="muted">(after {s.ms} ms)</span>
        </td>
      )}
      {s.state === "read" && (
        <>
          <td className="nowrap" data-testid="fleet-version">
            {s.version.gitVersion}
          </td>
          <td>
            {s.apis
              .filter((a) => a.group === "admissionregistration.k8s.io")
              .map((a) => (
                <span
                  key={a.version}
                  className={`badge ${a.preferred ? "pref" : ""}`}
                  title={a.resources.map((x) => x.kind).join(", ")}
                >
                  {a.version} · {a.resources.length}
                </span>
              ))}
          </td>
          <td className="num" data-testid="fleet-hooks">
            {s.summary.counts.webhooks}
            <span className="muted">
              {" "}
              in{" "}
              {s.summary.counts.mutatingWebhookConfigurations +
                s.summary.counts.validatingWebhookConfigurations}
            </span>
          </td>
          <td className="num">
            {s.summary.counts.validatingAdmissionPolicies +
              s.summary.counts.mutatingAdmissionPolicies}
            <span className="muted">
              {" "}
              /{" "}
              {s.summary.counts.validatingAdmissionPolicyBindings +
                s.summary.counts.mutatingAdmissionPolicyBindings}
            </span>
          </td>
          <td className="num">
            <List
              items={s.summary.failClosedCritical.map(
                (h) => `${h.configuration} ${h.hook}: ${h.namespaces.join(", ")}`,
              )}
            />
          </td>
          <td className="num">
            <List
              items={s.summary.caExpiring.map(
                (h) => `${h.configuration} ${h.hook}: ${h.daysLeft} days`,
              )}
            />
          </td>
          <td className="num">
            {s.summary.backendsKnown ? (
              <List
                items={s.summary.backendsNotReady.map((h) => `${h.hook} → ${h.service}: ${h.code}`)}
              />
            ) : (
              <span className="muted" title="the Services or EndpointSlices could not be read">
                ?
              </span>
            )}
          </td>
          <td className="nowrap">
            {(["critical", "high", "medium", "low"] as const).map((sev) => (
              <span key={sev} className={`sev sev-${sev}`} title={`${s.summary.lint[sev]} ${sev}`}>
                {s.summary.lint[sev]}
              </span>
            ))}{" "}
            <span
              className="muted"
              data-testid="fleet-lint-minor"
              title={`lint checked as ${assumedMinorText(s.summary.kubernetes)}`}
            >
              as {s.summary.kubernetes.minor}
            </span>
          </td>
          <td className="nowrap">
            <Decisions d={s.decisions} />
          </td>
        </>
      )}
    </tr>
  );
}

function DriftTable({ entries, clusters }: { entries: DriftEntry[]; clusters: string[] }) {
  if (entries.length === 0)
    return (
      <p className="muted" data-testid="fleet-drift-empty">
        Nothing differs across the clusters read.
      </p>
    );
  return (
    <div className="table-scroll">
      <table className="data" data-testid="fleet-drift">
        <thead>
          <tr>
            <th>Object</th>
            <th>Field</th>
            {clusters.map((c) => (
              <th key={c}>{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <Fragment key={`${e.kind}/${e.name}`}>
              <tr data-testid="fleet-drift-object" data-object={e.name}>
                <td colSpan={2}>
                  <span className="muted">{e.kind}</span> <strong>{e.name}</strong>
                </td>
                {clusters.map((c) => (
                  <td key={c} className={e.missing.includes(c) ? "drift-differs" : ""}>
                    {e.present.includes(c) ? "present" : e.missing.includes(c) ? "absent" : ""}
                  </td>
                ))}
              </tr>
              {e.fields.map((f) => (
                <tr
                  key={f.field}
                  data-testid="fleet-drift-field"
                  data-field={f.field}
                  data-differs={f.differs}
                >
                  <td />
                  <td className="mono">{f.field}</td>
                  {clusters.map((c) => (
                    <td
                      key={c}
                      className={`mono ${f.differs ? "drift-differs" : ""}`}
                      style={{ fontSize: 11 }}
                    >
                      {f.values[c] ?? ""}
                    </td>
                  ))}
                </tr>
              ))}
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Every cluster the user can reach in one table (rows stream in as each cluster answers; one
 * that fails says which error, after how long), and the same configurations compared across
 * them with what differs highlighted.
 */
export function FleetPage() {
  const { context } = useTabContext();
  const { state, link } = useFleet(context);
  const [onlyDiffers, setOnlyDiffers] = useState(true);
  const drift = useMemo(() => driftOf(state.rows), [state.rows]);
  const shown = onlyDiffers ? onlyDiffering(drift) : drift;
  const readClusters = state.rows.filter((r) => r.row.state === "read").map(rowName);
  const counts = {
    read: state.rows.filter((r) => r.row.state === "read").length,
    failed: state.rows.filter((r) => r.row.state === "failed" || r.row.state === "no-credentials")
      .length,
    reading: state.rows.filter((r) => r.row.state === "reading").length,
  };
  return (
    <>
      <div className="page-head">
        <h1>Fleet</h1>
        <span className="muted" data-testid="fleet-counts">
          {state.rows.length} clusters · {counts.read} read · {counts.failed} not read
          {counts.reading > 0 ? ` · ${counts.reading} reading` : ""}
          {state.timeoutMs !== undefined ? ` · ${state.timeoutMs / 1000} s per cluster` : ""}
        </span>
        <span className="spacer" />
        <span className={`live ${link === "live" ? "" : "live-problem"}`} data-testid="fleet-link">
          {link === "live" ? (state.live ? "live" : "read once") : link}
        </span>
      </div>
      <div className="table-scroll">
        <table className="data" data-testid="fleet-table">
          <thead>
            <tr>
              <th>Cluster</th>
              <th>Server · found by</th>
              <th>Version</th>
              <th title="admissionregistration.k8s.io versions served, with their kinds">
                Admission APIs
              </th>
              <th className="num" title="webhooks in configurations">
                Hooks
              </th>
              <th className="num" title="admission policies / bindings">
                Policies
              </th>
              <th
                className="num"
                title="fail-closed hooks that intercept pods in kube-system or runlevel 0–1 namespaces"
              >
                Fail-closed on critical ns
              </th>
              <th className="num" title="caBundles whose certificate expires within 30 days">
                CA &lt; 30 d
              </th>
              <th className="num" title="Service backends without a ready endpoint">
                Backends down
              </th>
              <th title="lint findings: critical, high, medium, low, checked as the cluster's minor">
                Lint
              </th>
              <th title="the last hour's denials / errors / fail-opens, where the decision store holds this cluster's">
                Last hour
              </th>
            </tr>
          </thead>
          <tbody>
            {state.rows.map((r) => (
              <ClusterRow key={r.id} r={r} />
            ))}
          </tbody>
        </table>
      </div>
      <div className="page-head" style={{ marginTop: 16 }}>
        <h2>Drift</h2>
        <span className="muted">
          configurations, policies and bindings by name, across the clusters read
        </span>
        <span className="spacer" />
        <label className="muted">
          <input
            type="checkbox"
            checked={onlyDiffers}
            onChange={(e) => setOnlyDiffers(e.target.checked)}
            data-testid="fleet-only-differs"
          />{" "}
          Only what differs
        </label>
      </div>
      <DriftTable entries={shown} clusters={readClusters} />
    </>
  );
}
