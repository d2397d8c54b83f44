"use client";

import { useMemo } from "react";
import { useQueries, useQuery } from "@tanstack/react-query";
import { overviewQuery } from "@/lib/queries/overview";
import type { OverviewData } from "@/lib/api/overview";
import { collectionQuery } from "@/lib/queries/collections";
import type { CollectionData, KubeObjectLike } from "@/lib/api/kube-list";
import { refToString, type ResourceRef } from "@/lib/k8s/resources";
import { withManifests, type AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import { admissionManifestsQuery } from "@/lib/queries/admission-manifests";
import {
  ENDPOINT_SLICES,
  NAMESPACES,
  SERVICES,
  matrixCollections,
  snapshotOfCollections,
  unpackNamespaces,
  type PackedNamespaces,
} from "@/lib/namespaces/matrix-collections";
import { useLiveCollections, type LiveStatus } from "@/components/live/use-live-collections";
import { useTabContext } from "@/components/layout/tab-context";

/** Whose view the server read and what the cluster serves: small, sent first. */
export interface AdmissionStateSeedHead {
  context: string;
  overview: OverviewData;
}

/** What the server read for the first render (see server/namespaces/matrix-seed.ts). */
export interface AdmissionStateSeed extends AdmissionStateSeedHead {
  collections: Record<string, CollectionData>;
  /** The namespaces, packed (they are most of the bytes at scale). */
  namespaces?: PackedNamespaces;
}

/** The part of the seed that follows the first screen. */
export type AdmissionStateSeedCollections = Omit<AdmissionStateSeed, keyof AdmissionStateSeedHead>;

function isWhole(seed: AdmissionStateSeed | AdmissionStateSeedHead): seed is AdmissionStateSeed {
  return "collections" in seed;
}

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
  live: LiveStatus;
  error: Error | null;
}

/**
 * Namespaces, webhook configurations, admission policies and bindings (every served kind, at
 * the version the dashboard reads it), each a collection in the query cache read as the tab's
 * context and kept current over /api/watch; with `backends`, also Services and EndpointSlices.
 * A server seed for the tab's context fills the cache so the first render needs no round trip.
 */
export function useAdmissionState({
  backends = false,
  seed,
  pending = false,
}: {
  backends?: boolean;
  /** The server's seed: its collections may still be on their way (`pending`). */
  seed?: AdmissionStateSeed | AdmissionStateSeedHead;
  /**
   * The seed's collections follow in the same response: read no collection (and open no watch)
   * until they are here, so nothing is read twice.
   */
  pending?: boolean;
} = {}): AdmissionState {
  const { context, error: contextError } = useTabContext();
  const seededHead = seed !== undefined && seed.context === context ? seed : undefined;
  const seeded = seededHead && isWhole(seededHead) ? seededHead : undefined;
  const waiting = pending && seededHead !== undefined;
  const overview = useQuery({
    ...overviewQuery(context ?? ""),
    enabled: context !== undefined,
    initialData: seededHead?.overview,
    // The seed was read just now; do not read discovery again on mount.
    staleTime: seededHead ? 60_000 : 0,
  });
  const packed = seeded?.namespaces;
  const seededNamespaces = useMemo(() => (packed ? unpackNamespaces(packed) : undefined), [packed]);
  const refs = useMemo(
    () =>
      overview.data
        ? [
            ...matrixCollections(overview.data.apis),
            ...(backends ? [SERVICES, ENDPOINT_SLICES] : []),
          ]
        : [],
    [overview.data, backends],
  );
  // `combine` re-runs only when a query's result changes, so `datas` keeps its identity between
  // renders and the snapshot below is rebuilt only when a collection changed.
  const { datas, error } = useQueries({
    queries: (waiting ? [] : refs).map((ref) => ({
      ...collectionQuery(context ?? "", ref),
      enabled: context !== undefined,
      initialData: ref === NAMESPACES ? seededNamespaces : seeded?.collections[refToString(ref)],
    })),
    combine,
  });
  const live = useLiveCollections(context, waiting ? [] : refs);
  const ready = !waiting && refs.length > 0 && datas.every((d) => d !== undefined);
  // The static hooks and policies the apiserver loads from its manifest directories (when the
  // dashboard reads them) join the snapshot marked static: the matrix and the deadlock map see
  // them as the apiserver runs them.
  const manifests = useQuery({
    ...admissionManifestsQuery(context ?? ""),
    enabled: context !== undefined,
  });
  const staticObjects = manifests.data?.configured ? manifests.data.objects : undefined;
  const built = useMemo(() => {
    if (!ready) return { snapshot: undefined, created: new Map<string, number>() };
    const read = snapshotOfCollections(
      refs.map((ref, i) => ({ resource: ref.resource, items: datas[i]?.items ?? [] })),
    );
    return staticObjects
      ? { ...read, snapshot: withManifests(read.snapshot, staticObjects) }
      : read;
  }, [ready, refs, datas, staticObjects]);
  const at = (ref: ResourceRef) => {
    const i = waiting ? -1 : refs.indexOf(ref);
    return i < 0 ? undefined : datas[i]?.items;
  };
  return {
    context,
    snapshot: built.snapshot,
    created: built.created,
    services: backends ? at(SERVICES) : undefined,
    endpointSlices: backends ? at(ENDPOINT_SLICES) : undefined,
    live,
    error: contextError ?? overview.error ?? error,
  };
}
