"use client";

import { useQueries, useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { contextsQuery } from "@/lib/queries/contexts";
import { overviewQuery } from "@/lib/queries/overview";
import { collectionQuery } from "@/lib/queries/collections";
import { servedKinds } from "@/lib/k8s/served-kinds";
import type { ResourceRef } from "@/lib/k8s/resources";
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

/** Roles of kinds that hold webhooks (or their historical equivalents). */
const HOOK_ROLES = new Set(["mutating", "validating", "initializer", "legacy-webhook"]);

/**
 * Every webhook-like configuration kind discovery says the cluster serves (so legacy kinds slot
 * in when served), each kept live in the query cache from the watch stream.
 */
export function useWebhookConfigs(): WebhookConfigs {
  const contexts = useQuery(contextsQuery());
  const context = contexts.data?.current;
  const overview = useQuery({ ...overviewQuery(context ?? ""), enabled: context !== undefined });
  const served = useMemo(
    () =>
      servedKinds(overview.data?.apis ?? []).filter(
        (k) =>
          k.readAt &&
          HOOK_ROLES.has(k.known.role) &&
          !k.known.kind.endsWith("Policy") &&
          !k.known.kind.endsWith("Binding"),
      ),
    [overview.data],
  );
  const refs = useMemo(() => served.flatMap((k) => (k.readAt ? [k.readAt] : [])), [served]);
  const results = useQueries({
    queries: refs.map((ref) => ({
      ...collectionQuery<ConfigLike>(context ?? "", ref),
      enabled: context !== undefined,
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
    error: contexts.error ?? overview.error,
    loading: !overview.data || results.some((r) => r.isPending),
  };
}
