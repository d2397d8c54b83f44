"use client";

import Link from "next/link";
import { useMemo } from "react";
import { useQuery } from "@tanstack/react-query";
import type { V1EndpointSlice, V1Service } from "@/lib/k8s/types";
import type { Backend } from "@/lib/admission/lint/deadlock";
import { deadlockMap } from "@/lib/namespaces/deadlock-view";
import {
  LABEL_SOURCE_TEXT,
  backendTargets,
  endpointsFingerprint,
} from "@/lib/namespaces/backend-pods";
import { backendPodsQuery } from "@/lib/queries/backend-pods";
import type { BackendPodsData } from "@/lib/api/webhooks";
import { configurationHref, hookHref, namespaceHref } from "@/lib/namespaces/links";
import { ErrorBox } from "@/components/ui/error-box";
import { HookFindings } from "@/components/webhooks/hook-findings";
import { useAdmissionState } from "./use-admission-state";
import { useMatrixModel } from "./use-matrix-model";
import { DeadlockSvg } from "./deadlock-svg";
import { LiveIndicator } from "@/components/live/live-indicator";
import { OutsideApiNotice } from "@/components/outside-api/outside-api-notice";
import { StaticBadge } from "@/components/outside-api/static-badge";

/** What the map reads about the backends' pods (none given: the Services' selectors stand in). */
type PodLabelInput = Partial<Pick<BackendPodsData, "pods" | "workloads">>;
/** No backend selects pods: nothing to read. */
const NO_LABELS: PodLabelInput = { pods: [], workloads: [] };
/** The pods could not be read. */
const SELECTORS_ONLY: PodLabelInput = {};

/**
 * The bootstrap-deadlock map: each webhook → its backend → the hooks that intercept the creation
 * of the backend's pods, with fail-closed self-interception, cycles, kube-system / runlevel 0–1
 * coverage and backends without ready endpoints called out, and each finding's fix one click from
 * the editor. A backend's pod labels are its pods', else its workloads' pod templates', else its
 * Service selector's (read in the backends' namespaces only, see /api/webhooks/backend-pods).
 * Live.
 */
export function DeadlockPage() {
  const state = useAdmissionState({ backends: true });
  const model = useMatrixModel();
  const services = state.services as V1Service[] | undefined;
  const slices = state.endpointSlices as V1EndpointSlice[] | undefined;
  const targets = useMemo(
    () => (state.snapshot && services ? backendTargets(state.snapshot, services) : undefined),
    [state.snapshot, services],
  );
  // Read again when the backends' endpoints change: their pods came, went or were replaced.
  const at = useMemo(
    () => (targets && slices ? endpointsFingerprint(targets, slices) : ""),
    [targets, slices],
  );
  const podLabels = useQuery({
    ...backendPodsQuery(state.context ?? "", targets ?? [], at),
    enabled: state.context !== undefined && targets !== undefined && targets.length > 0,
  });
  // Until the labels are here (or could not be read) the map would judge by selectors alone.
  const failed = podLabels.error !== null;
  const labels = useMemo(
    (): PodLabelInput | undefined =>
      targets === undefined
        ? undefined
        : targets.length === 0
          ? NO_LABELS
          : (podLabels.data ?? (failed ? SELECTORS_ONLY : undefined)),
    [targets, podLabels.data, failed],
  );
  const result = useMemo(() => {
    if (!model || !state.snapshot || !services || !slices || !labels) return undefined;
    const input = {
      snapshot: state.snapshot,
      services,
      endpointSlices: slices,
      ...(labels.pods ? { pods: labels.pods } : {}),
      ...(labels.workloads ? { workloads: labels.workloads } : {}),
    };
    const r = model.deadlocks(input, model.compile(state.snapshot));
    return { ...r, map: deadlockMap(r.graph) };
  }, [model, state.snapshot, services, slices, labels]);
  const forbidden = podLabels.data?.forbidden ?? {};

  const g = result?.graph;
  const noEndpoints = g?.hooks.filter(
    (h) => h.failClosed && (h.backend?.readyEndpoints === 0 || h.backend?.serviceFound === false),
  );
  const critical = g?.hooks.filter((h) => h.failClosed && h.critical.length > 0);
  const byKey = new Map(g?.hooks.map((h) => [h.key, h]) ?? []);
  return (
    <div className="stack">
      <div className="page-head">
        <h1>Bootstrap deadlock map</h1>
        <LiveIndicator {...state.live} />
        <span className="spacer" />
        <Link href="/namespaces">Exemption matrix</Link>
      </div>
      <OutsideApiNotice />
      {state.error && <ErrorBox error={state.error} />}
      {!result || !g ? (
        <p className="muted">Reading the cluster…</p>
      ) : (
        <>
          <section className="panel" aria-label="Summary">
            <span className={`sev ${g.selfLoops.length ? "sev-critical" : "sev-info"}`}>
              {g.selfLoops.length} self-interceptions
            </span>
            <span className={`sev ${g.cycles.length ? "sev-critical" : "sev-info"}`}>
              {g.cycles.length} cycles
            </span>
            <span className={`sev ${critical?.length ? "sev-high" : "sev-info"}`}>
              {critical?.length ?? 0} fail-closed hooks on kube-system / runlevel 0–1 pods
            </span>
            <span className={`sev ${noEndpoints?.length ? "sev-critical" : "sev-info"}`}>
              {noEndpoints?.length ?? 0} fail-closed backends without ready endpoints
            </span>
            {g.cycles.length > 0 && (
              <ul>
                {g.cycles.map((c, i) => (
                  <li key={i}>
                    Cycle #{i + 1}:{" "}
                    {[...c, c[0]].map((k, j) => (
                      <span key={j}>
                        {j > 0 && " → "}
                        <span className="mono">{byKey.get(k ?? "")?.hook.id.name}</span>
                      </span>
                    ))}
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section className="panel">
            <h2>Findings</h2>
            <HookFindings findings={result.findings} />
          </section>
          <section>
            <h2>Map</h2>
            <p className="hint">
              hook ⇢ its backend (dashed) → the hooks that intercept the creation of that
              backend&apos;s pods. Red: fail-closed self-interception or cycle, coverage of
              kube-system or runlevel 0–1, or a backend without ready endpoints. A backend&apos;s
              pod labels are those of the pods its Service selects, else the pod templates of the
              Deployments, StatefulSets, DaemonSets and ReplicaSets it selects, else the
              Service&apos;s selector itself; the table says which, per backend.
            </p>
            {podLabels.error ? (
              <p className="hint" role="status">
                {`The backends' pods and workloads could not be read (${podLabels.error.message}): ${
                  podLabels.data
                    ? "their labels are as read before."
                    : "pod labels come from each Service's selector."
                }`}
              </p>
            ) : null}
            {podLabels.data && podLabels.data.notices.length > 0 ? (
              <ul className="hint" aria-label="Pod label notices">
                {podLabels.data.notices.map((n) => (
                  <li key={n}>{n}</li>
                ))}
              </ul>
            ) : null}
            {result.map.nodes.length === 0 ? (
              <p className="muted">
                No service-backed hooks and no hooks on system pods: nothing here can block the
                cluster&apos;s own start-up. Hooks with a url backend run outside the cluster.
              </p>
            ) : (
              <DeadlockSvg nodes={result.map.nodes} edges={result.map.edges} />
            )}
          </section>
          <section className="panel">
            <h2>As a table</h2>
            <table className="data">
              <thead>
                <tr>
                  <th>Hook</th>
                  <th>Failure policy</th>
                  <th>Backend</th>
                  <th className="num">Ready endpoints</th>
                  <th>Pod labels from</th>
                  <th>Intercepts the pods of</th>
                  <th>System / runlevel 0–1 namespaces</th>
                </tr>
              </thead>
              <tbody>
                {g.hooks
                  .filter((h) => h.backend || h.critical.length > 0)
                  .map((h) => {
                    const cfg = configurationHref(h.hook.id);
                    const targets = g.edges.filter((e) => e.from === h.key);
                    return (
                      <tr key={h.key}>
                        <td>
                          <Link href={hookHref(h.hook.id)} prefetch={false}>
                            {h.hook.id.name}
                          </Link>{" "}
                          {cfg && (
                            <span className="muted">
                              (
                              <Link href={cfg} prefetch={false}>
                                {h.hook.id.configuration}
                              </Link>
                              )
                            </span>
                          )}{" "}
                          <StaticBadge origin={h.hook.id.origin} withFile={false} />
                        </td>
                        <td className={h.failClosed ? "bad" : undefined}>{h.hook.failurePolicy}</td>
                        <td className="mono">
                          {h.backend ? (
                            <>
                              <Link href={namespaceHref(h.backend.namespace)} prefetch={false}>
                                {h.backend.namespace}
                              </Link>
                              /{h.backend.service}
                              {h.backend.serviceFound === false && (
                                <span className="bad"> (Service not found)</span>
                              )}
                            </>
                          ) : (
                            <span className="muted">url</span>
                          )}
                        </td>
                        <td className={`num${h.backend?.readyEndpoints === 0 ? " bad" : ""}`}>
                          {h.backend?.readyEndpoints ?? "—"}
                        </td>
                        <td>
                          {h.backend ? (
                            <LabelSource backend={h.backend} forbidden={forbidden} />
                          ) : (
                            "—"
                          )}
                        </td>
                        <td>
                          {targets.length === 0
                            ? "—"
                            : targets
                                .map(
                                  (e) =>
                                    `${byKey.get(e.to)?.hook.id.name ?? e.to}${e.to === h.key ? " (itself)" : ""}${e.verdict === "maybe" ? " (depends on matchConditions)" : ""}`,
                                )
                                .join(", ")}
                        </td>
                        <td className={h.failClosed && h.critical.length > 0 ? "bad" : undefined}>
                          {h.critical.join(", ") || "—"}
                        </td>
                      </tr>
                    );
                  })}
              </tbody>
            </table>
          </section>
        </>
      )}
    </div>
  );
}

/** Where a backend's pod labels came from, and what could not be read in its namespace. */
function LabelSource({
  backend,
  forbidden,
}: {
  backend: Backend;
  forbidden: Readonly<Record<string, readonly string[]>>;
}) {
  const n = backend.podLabels.length;
  const counted = backend.source === "pods" || backend.source === "workloads";
  const unread = forbidden[backend.namespace] ?? [];
  return (
    <>
      {LABEL_SOURCE_TEXT[backend.source]}
      {counted && ` (${n})`}
      {backend.source !== "pods" && unread.length > 0 && (
        <span className="muted"> — may not list {unread.join(", ")} here</span>
      )}
    </>
  );
}
