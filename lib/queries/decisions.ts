/** The decision feed's query options (the browser side of /api/decisions). */
import { queryOptions } from "@tanstack/react-query";
import { callApi } from "@/lib/api/client";
import { decisionDetailRoute, decisionListRoute, decisionTallyRoute } from "@/lib/api/decisions";
import { decisionFilterParams, type DecisionFilter } from "@/lib/decisions/filter";
import { queryKeys } from "./keys";
import { rereadEvery } from "./no-answer";

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
      callApi(decisionListRoute, {
        query: filterQuery(filter, { limit: String(limit) }).slice(1),
        signal,
      }),
    staleTime: Infinity,
    // (A read the apiserver could not authorise because it did not answer is asked again by the
    // QueryClient's default refetch interval, lib/queries/no-answer.ts.)
    retry: false,
  });

export const decisionDetailQuery = (context: string, id: number) =>
  queryOptions({
    queryKey: queryKeys.decisionDetail(context, id),
    queryFn: ({ signal }) => callApi(decisionDetailRoute, { params: { id: String(id) }, signal }),
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
    queryFn: ({ signal }) => callApi(decisionTallyRoute, { signal }),
    refetchInterval: rereadEvery(TALLY_REFRESH_MS),
    retry: false,
  });
