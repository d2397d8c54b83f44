"use client";

import { useQueries, useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { useTabContext } from "@/components/layout/tab-context";
import { overviewQuery } from "@/lib/queries/overview";
import type { OverviewData } from "@/lib/api/overview";
import { collectionQuery } from "@/lib/queries/collections";
import { servedHookKinds } from "@/lib/webhooks/hook-kinds";
import type { ServedKind } from "@/lib/k8s/served-kinds";
import { refToString, type ResourceRef } from "@/lib/k8s/resources";
import type { ConfigLike } from "@/lib/webhooks/summary";
import type { WebhookListSeed, WebhookListSeedHead } from "@/lib/webhooks/list-seed";
import { useLiveCollections, type LiveStatus } from "@/components/live/use-live-collections";

const NONE: ResourceRef[] = [];

/** One served configuration kind and its live objects. */
export interface KindCollection {
  kind: string;
  resource: string;
  ref: ResourceRef;
  items: ConfigLike[] | undefined;
  /** The collection's resourceVersion as the cache holds it. */
  resourceVersion: string | undefined;
  error: Error | null;
}

export interface WebhookConfigs {
  context: string | undefined;
  kinds: KindCollection[];
  live: LiveStatus;
  error: Error | null;
  loading: boolean;
}

/**
 * What the server read for the first render (see server/webhooks/list-seed.ts): the head alone
 * while its collections are on their way, then the whole seed.
 */
export type WebhookConfigsSeed = WebhookListSeed | WebhookListSeedHead;

function isWhole(seed: WebhookConfigsSeed): seed is WebhookListSeed {
  return "collections" in seed;
}

/**
 * Every webhook-like configuration kind discovery says the cluster serves (or the kinds `select`
 * picks, e.g. the admission policy kinds) (so legacy kinds slot
 * in when served), each kept live in the query cache from the watch stream. A server seed, when
 * given, fills the cache for its context (initialData) so no collection is read twice; with
 * `pending` (its collections follow in the same response) nothing is read and no stream opened
 * until they are here. Without `stream`, the page keeps them live in its own one stream (a page
 * holds one of the browser's few stream slots, lib/queries/stream-slots.ts).
 */
export function useWebhookConfigs(
  seed?: WebhookConfigsSeed,
  select: (apis: OverviewData["apis"]) => ServedKind[] = servedHookKinds,
  pending = false,
  stream = true,
): WebhookConfigs {
  const { context, error: contextError } = useTabContext();
  const seededHead = seed !== undefined && seed.context === context ? seed : undefined;
  const seededCollections = seededHead && isWhole(seededHead) ? seededHead.collections : undefined;
  const waiting = pending && seededHead !== undefined;
  const overview = useQuery({
    ...overviewQuery(context ?? ""),
    enabled: context !== undefined,
    initialData: seededHead?.overview,
    // The seed was read just now; do not read discovery again on mount.
    staleTime: seededHead ? 60_000 : 0,
  });
  const served = useMemo(() => select(overview.data?.apis ?? []), [overview.data, select]);
  const refs = useMemo(() => served.flatMap((k) => (k.readAt ? [k.readAt] : [])), [served]);
  const results = useQueries({
    queries: (waiting ? [] : refs).map((ref) => ({
      ...collectionQuery<ConfigLike>(context ?? "", ref),
      enabled: context !== undefined,
      initialData: seededCollections?.[refToString(ref)],
    })),
  });
  const live = useLiveCollections(context, waiting || !stream ? NONE : refs);
  const kinds = served.map((k, i) => ({
    kind: k.known.kind,
    resource: k.known.resource,
    ref: refs[i] as ResourceRef,
    items: results[i]?.data?.items,
    resourceVersion: results[i]?.data?.resourceVersion,
    error: results[i]?.error ?? null,
  }));
  return {
    context,
    kinds,
    live,
    error: contextError ?? overview.error,
    loading: waiting || !overview.data || results.some((r) => r.isPending),
  };
}
