"use client";

import { useMemo } from "react";
import { useQueries, useQuery } from "@tanstack/react-query";
import { overviewQuery } from "@/lib/queries/overview";
import { collectionQuery, type KubeObjectLike } from "@/lib/queries/collections";
import { servedKinds } from "@/lib/k8s/served-kinds";
import type { ResourceRef } from "@/lib/k8s/resources";
import type { AdmissionSnapshot } from "@/lib/admission/snapshot";
import type { Labels } from "@/lib/admission/selectors";
import { useLiveCollections, type LiveState } from "@/components/live/use-live-collections";
import { useTabContext } from "@/components/layout/tab-context";

const NAMESPACES: ResourceRef = { group: "", version: "v1", resource: "namespaces" };
const SERVICES: ResourceRef = { group: "", version: "v1", resource: "services" };
const SLICES: ResourceRef = {
  group: "discovery.k8s.io",
  version: "v1",
  resource: "endpointslices",
};

/** Snapshot fields by the admission resource they are read from. */
const SNAPSHOT_FIELD: Record<string, keyof AdmissionSnapshot> = {
  mutatingwebhookconfigurations: "mutatingWebhookConfigurations",
  validatingwebhookconfigurations: "validatingWebhookConfigurations",
  validatingadmissionpolicies: "validatingAdmissionPolicies",
  validatingadmissionpolicybindings: "validatingAdmissionPolicyBindings",
  mutatingadmissionpolicies: "mutatingAdmissionPolicies",
  mutatingadmissionpolicybindings: "mutatingAdmissionPolicyBindings",
};

type NamespaceObject = KubeObjectLike & {
  metadata?: { labels?: Record<string, string>; creationTimestamp?: string };
};

/** Stable (module-level), so TanStack Query re-runs it only when a result changed. */
function combine(
  results: ReadonlyArray<{ data?: { items: KubeObjectLike[] }; error: Error | null }>,
) {
  return {
    datas: results.map((r) => r.data),
    error: results.find((r) => r.error)?.error ?? null,
  };
}

/** Everything the namespaces pages read, live. */
export interface AdmissionState {
  context: string | undefined;
  /** Undefined until every collection has arrived. */
  snapshot: AdmissionSnapshot | undefined;
  /** Namespace name → creation time (ms since the epoch). */
  created: ReadonlyMap<string, number>;
  /** Services and EndpointSlices (only when asked for: the deadlock map). */
  services: KubeObjectLike[] | undefined;
  endpointSlices: KubeObjectLike[] | undefined;
  live: LiveState;
  error: Error | null;
}

/**
 * Namespaces, webhook configurations, admission policies and bindings (every served kind, at
 * the version the dashboard reads it), each a collection in the query cache read as the tab's
 * context and kept current over /api/watch; with `backends`, also Services and EndpointSlices.
 */
export function useAdmissionState({
  backends = false,
}: { backends?: boolean } = {}): AdmissionState {
  const { context, error: contextError } = useTabContext();
  const overview = useQuery({ ...overviewQuery(context ?? ""), enabled: context !== undefined });
  const admission = useMemo(
    () =>
      servedKinds(overview.data?.apis ?? []).flatMap((k) =>
        k.readAt && SNAPSHOT_FIELD[k.known.resource] ? [k.readAt] : [],
      ),
    [overview.data],
  );
  const refs = useMemo(
    () =>
      overview.data ? [NAMESPACES, ...admission, ...(backends ? [SERVICES, SLICES] : [])] : [],
    [overview.data, admission, backends],
  );
  // `combine` re-runs only when a query's result changes, so `datas` keeps its identity between
  // renders and the snapshot below is rebuilt only when a collection changed.
  const { datas, error } = useQueries({
    queries: refs.map((ref) => ({
      ...collectionQuery(context ?? "", ref),
      enabled: context !== undefined,
    })),
    combine,
  });
  const live = useLiveCollections(context, refs);
  const ready = refs.length > 0 && datas.every((d) => d !== undefined);
  const built = useMemo(() => {
    const created = new Map<string, number>();
    if (!ready) return { snapshot: undefined, created };
    const s: Record<string, unknown> = {};
    const namespaces: Record<string, Labels> = {};
    refs.forEach((ref, i) => {
      const items = datas[i]?.items ?? [];
      if (ref === NAMESPACES) {
        for (const ns of items as NamespaceObject[]) {
          const name = ns.metadata?.name;
          if (!name) continue;
          namespaces[name] = ns.metadata?.labels ?? {};
          const t = Date.parse(ns.metadata?.creationTimestamp ?? "");
          if (Number.isFinite(t)) created.set(name, t);
        }
        return;
      }
      const field = SNAPSHOT_FIELD[ref.resource];
      if (field) s[field] = items;
    });
    return { snapshot: { ...(s as AdmissionSnapshot), namespaces }, created };
  }, [ready, refs, datas]);
  const at = (ref: ResourceRef) => {
    const i = refs.indexOf(ref);
    return i < 0 ? undefined : datas[i]?.items;
  };
  return {
    context,
    snapshot: built.snapshot,
    created: built.created,
    services: backends ? at(SERVICES) : undefined,
    endpointSlices: backends ? at(SLICES) : undefined,
    live,
    error: contextError ?? overview.error ?? error,
  };
}
