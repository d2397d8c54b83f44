"use client";

import { useQueries, useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { useTabContext } from "@/components/layout/tab-context";
import { overviewQuery, type OverviewData } from "@/lib/queries/overview";
import { collectionQuery, type CollectionData } from "@/lib/queries/collections";
import { servedHookKinds } from "@/lib/webhooks/hook-kinds";
import { refToString, type ResourceRef } from "@/lib/k8s/resources";
import type { ConfigLike } from "@/lib/webhooks/summary";
import { useLiveCollections, type LiveState } from "@/components/live/use-live-collections";

/** One served configuration kind and its live objects. */
export interface KindCollection {
  kind: string;
  resource: string;
  ref: ResourceRef;
  items: ConfigLike[] | undefined;
  error: Error | null;
}

export interface WebhookConfigs {
  context: string | undefined;
  kinds: KindCollection[];
  live: LiveState;
  error: Error | null;
  loading: boolean;
}

/** What the server read for the first render (see server/webhooks/list-seed.ts). */
export interface WebhookConfigsSeed {
  context: string;
  overview: OverviewData;
  collections: Record<string, CollectionData<ConfigLike>>;
}

/**
 * Every webhook-like configuration kind discovery says the cluster serves (so legacy kinds slot
 * in when served), each kept live in the query cache from the watch stream. A server seed, when
 * given, fills the cache for its context so the first render (and the server render) has rows.
 */
export function useWebhookConfigs(seed?: WebhookConfigsSeed): WebhookConfigs {
  const { context, error: contextError } = useTabContext();
  const seeded = seed !== undefined && seed.context === context ? seed : undefined;
  const overview = useQuery({
    ...overviewQuery(context ?? ""),
    enabled: context !== undefined,
    initialData: seeded?.overview,
    // The seed was read just now; do not read discovery again on mount.
    staleTime: seeded ? 60_000 : 0,
  });
  const served = useMemo(() => servedHookKinds(overview.data?.apis ?? []), [overview.data]);
  const refs = useMemo(() => served.flatMap((k) => (k.readAt ? [k.readAt] : [])), [served]);
  const results = useQueries({
    queries: refs.map((ref) => ({
      ...collectionQuery<ConfigLike>(context ?? "", ref),
      enabled: context !== undefined,
      initialData: seeded?.collections[refToString(ref)],
    })),
  });
  const live = useLiveCollections(context, refs);
  const kinds = served.map((k, i) => ({
    kind: k.known.kind,
    resource: k.known.resource,
    ref: refs[i] as ResourceRef,
    items: results[i]?.data?.items,
    error: results[i]?.error ?? null,
  }));
  return {
    context,
    kinds,
    live,
    error: contextError ?? overview.error,
    loading: !overview.data || results.some((r) => r.isPending),
  };
}
