/** The change history's query options (the browser side of /api/history). */
import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import { callApi } from "@/lib/api/client";
import {
  historyEffectsRoute,
  historyRecentRoute,
  historyTimelineRoute,
  historyVersionRoute,
  RECENT_PAGE,
  TIMELINE_PAGE,
} from "@/lib/api/history";
import type { HistoryKind } from "@/lib/admission/history/kinds";
import type { RecentFilter } from "@/lib/admission/history/recent-filter";

export type { RecentFilter };

const historyKeys = {
  all: (context: string) => ["history", context] as const,
  timeline: (context: string, kind: string, name: string) =>
    ["history", context, "timeline", kind, name] as const,
  version: (context: string, id: number) => ["history", context, "version", id] as const,
  recent: (context: string, f: RecentFilter) =>
    [
      "history",
      context,
      "recent",
      f.actor ?? "",
      f.kind ?? "",
      f.name ?? "",
      f.cluster ?? "",
    ] as const,
  effects: (context: string, q: object) => ["history", context, "effects", q] as const,
};

/** How long a first page the server read for the page's HTML is not read again on mount. */
export const SEED_FRESH_MS = 60_000;

/**
 * The staleTime of a query started from a server seed read at `at`: the seed (or anything newer)
 * is not read again on mount; what the cache held from before it (an earlier visit) is.
 */
export const seededStaleTime =
  (at: number) =>
  (query: { state: { dataUpdatedAt: number } }): number =>
    query.state.dataUpdatedAt >= at ? SEED_FRESH_MS : 0;

/** One object's changes, newest first, a page at a time. */
export const timelineQuery = (context: string, kind: HistoryKind, name: string) =>
  infiniteQueryOptions({
    queryKey: historyKeys.timeline(context, kind, name),
    queryFn: ({ pageParam, signal }) =>
      callApi(historyTimelineRoute, {
        params: { kind, name },
        input: { limit: TIMELINE_PAGE, ...(pageParam ? { before: pageParam } : {}) },
        signal,
      }),
    initialPageParam: 0,
    getNextPageParam: (last) => last.nextBefore,
    retry: false,
  });

export const versionQuery = (context: string, id: number) =>
  queryOptions({
    queryKey: historyKeys.version(context, id),
    queryFn: ({ signal }) => callApi(historyVersionRoute, { params: { id: String(id) }, signal }),
    staleTime: Infinity,
    retry: false,
  });

export const recentChangesQuery = (context: string, f: RecentFilter) =>
  infiniteQueryOptions({
    queryKey: historyKeys.recent(context, f),
    queryFn: ({ pageParam, signal }) =>
      callApi(historyRecentRoute, {
        input: {
          limit: RECENT_PAGE,
          ...(f.actor ? { actor: f.actor } : {}),
          ...(f.kind ? { kind: f.kind } : {}),
          ...(f.name ? { name: f.name } : {}),
          ...(f.cluster ? { cluster: f.cluster } : {}),
          ...(pageParam ? { before: pageParam } : {}),
        },
        signal,
      }),
    initialPageParam: 0,
    getNextPageParam: (last) => last.nextBefore,
    retry: false,
  });

export interface EffectsInput {
  kind: HistoryKind;
  name: string;
  hook?: string;
  policy?: string;
  phase?: "mutating" | "validating";
  window: number;
}

export const effectsQuery = (context: string, q: EffectsInput) =>
  queryOptions({
    queryKey: historyKeys.effects(context, q),
    queryFn: ({ signal }) => callApi(historyEffectsRoute, { input: q, signal }),
    retry: false,
  });
