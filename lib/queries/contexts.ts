import { queryOptions } from "@tanstack/react-query";
import { callApi } from "@/lib/api/client";
import { listContextsRoute, rememberContextRoute } from "@/lib/api/contexts";
import { queryKeys } from "./keys";

export const contextsQuery = () =>
  queryOptions({
    queryKey: queryKeys.contexts(),
    queryFn: ({ signal }) => callApi(listContextsRoute, { signal }),
    staleTime: Infinity,
  });

/** Remembers `context` as where new tabs start; it does not change any open tab. */
export function rememberContext(context: string): Promise<{ start: string }> {
  return callApi(rememberContextRoute, { input: { context } });
}
