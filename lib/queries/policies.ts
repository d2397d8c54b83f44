/** Query options and calls for the policy pages (the browser side of /api/policies). */
import { queryOptions } from "@tanstack/react-query";
import type { ParamsReport } from "@/lib/policies/params-model";
import type { TryResult } from "@/lib/policies/try-model";
import { rereadEvery } from "./no-answer";
import { apiFetch } from "./fetch";
import { queryKeys } from "./keys";

/** How often the params report is read again while shown (parameter objects are not watched). */
export const PARAMS_REREAD_MS = 30_000;

/**
 * What every binding's params resolve to. `at` names the collection versions it answers for, so a
 * changed policy or binding reads it again; parameter objects themselves are not watched, so it
 * is also read again every PARAMS_REREAD_MS.
 */
export const policyParamsQuery = (context: string, at: string) =>
  queryOptions({
    queryKey: queryKeys.policyParams(context, at),
    queryFn: ({ signal }) =>
      apiFetch<ParamsReport>(`/api/policies/params?at=${encodeURIComponent(at)}`, { signal }),
    staleTime: PARAMS_REREAD_MS,
    refetchInterval: rereadEvery(PARAMS_REREAD_MS),
    retry: false,
  });

/** Dry-run create of an object through the apiserver: what admission says, nothing stored. */
export function tryRequest(object: unknown): Promise<TryResult> {
  return apiFetch<TryResult>("/api/policies/try", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ object }),
  });
}
