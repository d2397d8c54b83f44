/** The Initializers page's uninitialized objects (GET /api/initializers/uninitialized). */
import { queryOptions } from "@tanstack/react-query";
import { callApi } from "@/lib/api/client";
import { uninitializedRoute } from "@/lib/api/initializers";
import { rereadEvery } from "./no-answer";
import { queryKeys } from "./keys";

export const uninitializedQuery = (context: string, stuckAfterSeconds: number) =>
  queryOptions({
    queryKey: queryKeys.uninitialized(context, stuckAfterSeconds),
    queryFn: ({ signal }) => callApi(uninitializedRoute, { input: { stuckAfterSeconds }, signal }),
    staleTime: 10_000,
    // Objects get stuck (or initialized) by the second: read again while shown.
    refetchInterval: rereadEvery(15_000),
    retry: false,
  });
