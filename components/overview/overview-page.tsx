"use client";

import { useQuery } from "@tanstack/react-query";
import { useTabContext } from "@/components/layout/tab-context";
import { contextsQuery } from "@/lib/queries/contexts";
import { overviewQuery } from "@/lib/queries/overview";
import { ApiError } from "@/lib/api/client";
import { servedKinds } from "@/lib/k8s/served-kinds";
import { servedV1beta1HookKinds } from "@/lib/k8s/v1beta1-hooks";
import { ADMISSION_GROUP } from "@/lib/k8s/admission-apis";
import { AdmissionApisTable } from "./admission-apis-table";
import { ClusterUnreachable } from "./cluster-unreachable";
import { KindCountsTable } from "./kind-counts-table";
import { RecentTrouble } from "./recent-trouble";
import { ActiveFights } from "@/components/provenance/active-fights";
import { dashboardError } from "@/lib/api/contract";

/**
 * Overview: the cluster's version, the admission APIs it serves, the webhooks and policies that
 * did not let requests through lately, and live counts per kind.
 */
export function OverviewPage() {
  const { context, error: contextError } = useTabContext();
  const contexts = useQuery(contextsQuery());
  const overview = useQuery({ ...overviewQuery(context ?? ""), enabled: context !== undefined });

  const error = contextError ?? overview.error;
  if (error) {
    const apiError =
      error instanceof ApiError
        ? error
        : new ApiError(dashboardError({ status: 0, reason: "Error", message: error.message }));
    return (
      <>
        <h1>Overview</h1>
        <ClusterUnreachable error={apiError} context={context} />
      </>
    );
  }
  if (!overview.data || !context) {
    return (
      <>
        <h1>Overview</h1>
        <p className="muted" aria-busy="true">
          Reading the cluster…
        </p>
      </>
    );
  }
  const o = overview.data;
  const ctx = contexts.data?.contexts.find((c) => c.name === context);
  return (
    <>
      <h1>Overview</h1>
      <div className="grid">
        <section className="panel" aria-labelledby="cluster-h">
          <h2 id="cluster-h">Cluster</h2>
          <dl className="facts">
            <dt>Version</dt>
            <dd className="mono" data-testid="server-version">
              {o.version.gitVersion}
            </dd>
            <dt>Server</dt>
            <dd className="mono">{o.server}</dd>
            <dt>Context</dt>
            <dd className="mono">{o.context}</dd>
            <dt>User</dt>
            <dd className="mono">{ctx?.user ?? "—"}</dd>
            {o.version.platform ? (
              <>
                <dt>Platform</dt>
                <dd className="mono">{o.version.platform}</dd>
              </>
            ) : null}
          </dl>
        </section>
        <AdmissionApisTable apis={o.apis} />
      </div>
      <ActiveFights
        spaced
        context={context}
        refs={servedKinds(o.apis).flatMap((k) =>
          k.readAt && k.readAt.group === ADMISSION_GROUP ? [k.readAt] : [],
        )}
      />
      <div style={{ marginTop: 12 }}>
        <RecentTrouble context={context} />
      </div>
      <div style={{ marginTop: 12 }}>
        <KindCountsTable
          context={context}
          kinds={[
            ...servedKinds(o.apis),
            // The legacy group's v1beta1 webhook configurations: apart from the cluster's own.
            ...servedV1beta1HookKinds(o.apis).filter((k) => k.readAt?.group !== ADMISSION_GROUP),
          ]}
        />
      </div>
    </>
  );
}
