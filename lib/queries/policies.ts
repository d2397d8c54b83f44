/** Query options and calls for the policy pages (the browser side of /api/policies). */
import { queryOptions } from "@tanstack/react-query";
import type { TryResult } from "@/lib/policies/try-model";
import { callApi } from "@/lib/api/client";
import { policyParamsRoute, tryRequestRoute, type TryRequestInput } from "@/lib/api/policies";
import { rereadEvery } from "./no-answer";
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
      callApi(policyParamsRoute, { query: `at=${encodeURIComponent(at)}`, signal }),
    staleTime: PARAMS_REREAD_MS,
    refetchInterval: rereadEvery(PARAMS_REREAD_MS),
    retry: false,
  });

/** Dry-run create of an object through the apiserver: what admission says, nothing stored. */
export function tryRequest(object: unknown): Promise<TryResult> {
  // Any YAML object the admin wrote is sent: the route's schema judges it (a BadRequest names
  // what is missing), as the apiserver judges the rest.
  return callApi(tryRequestRoute, { input: { object } as TryRequestInput });
}
