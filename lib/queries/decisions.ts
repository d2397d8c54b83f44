/** The decision feed's API contract and query options (the browser side of /api/decisions). */
import { queryOptions } from "@tanstack/react-query";
import type { DecisionRecord } from "@/lib/admission/audit/audit";
import { decisionFilterParams, type DecisionFilter } from "@/lib/decisions/filter";
import type { DecisionHistogram } from "@/lib/decisions/histogram";
import type { DecisionTallyResponse } from "@/lib/decisions/tally";
import { apiFetch } from "./fetch";
import { queryKeys } from "./keys";
import { rereadEvery } from "./no-answer";

/** Most decisions one list request returns. */
export const DECISION_PAGE_LIMIT = 500;

/** GET /api/decisions: newest first, and the chart of the same filter. */
export interface DecisionListResponse {
  items: DecisionRecord[];
  histogram: DecisionHistogram;
}

/** GET /api/decisions/{id}: the decision and its audit event (Secret contents removed) as text. */
export interface DecisionDetailResponse {
  decision: DecisionRecord;
  rawEvent: string;
}

/** A message of the live stream GET /api/decisions/stream (`event: decisions`). */
export interface DecisionStreamMessage {
  items: DecisionRecord[];
}

/** The query string of a filter, for the API and the page URL. */
export function filterQuery(f: DecisionFilter, extra: Record<string, string> = {}): string {
  const p = decisionFilterParams(f);
  for (const [k, v] of Object.entries(extra)) p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : "";
}

export const decisionListQuery = (context: string, filter: DecisionFilter, limit = 200) =>
  queryOptions({
    queryKey: queryKeys.decisions(context, filterQuery(filter), limit),
    queryFn: ({ signal }) =>
      apiFetch<DecisionListResponse>(
        `/api/decisions${filterQuery(filter, { limit: String(limit) })}`,
        { signal },
      ),
    staleTime: Infinity,
    // (A read the apiserver could not authorise because it did not answer is asked again by the
    // QueryClient's default refetch interval, lib/queries/no-answer.ts.)
    retry: false,
  });

export const decisionDetailQuery = (context: string, id: number) =>
  queryOptions({
    queryKey: queryKeys.decisionDetail(context, id),
    queryFn: ({ signal }) => apiFetch<DecisionDetailResponse>(`/api/decisions/${id}`, { signal }),
    staleTime: Infinity,
    retry: false,
  });

/** How often the overview counts the recent decisions again (sooner while there is no answer). */
export const TALLY_REFRESH_MS = 15_000;

/**
 * The decisions of the last 15 minutes (by the server's clock: a browser's may be off) counted
 * by webhook or policy and outcome.
 */
export const decisionTallyQuery = (context: string) =>
  queryOptions({
    queryKey: queryKeys.decisionTally(context),
    queryFn: ({ signal }) => apiFetch<DecisionTallyResponse>("/api/decisions/tally", { signal }),
    refetchInterval: rereadEvery(TALLY_REFRESH_MS),
    retry: false,
  });
