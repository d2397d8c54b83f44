import { queryOptions } from "@tanstack/react-query";
import { callApi } from "@/lib/api/client";
import { overviewRoute } from "@/lib/api/overview";
import { queryKeys } from "./keys";

export const overviewQuery = (context: string) =>
  queryOptions({
    queryKey: queryKeys.overview(context),
    queryFn: ({ signal }) => callApi(overviewRoute, { signal }),
    retry: false,
  });
