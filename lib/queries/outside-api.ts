/** The query of what the apiserver runs outside the API (lib/api/outside-api.ts). */
import { queryOptions } from "@tanstack/react-query";
import { callApi } from "@/lib/api/client";
import { outsideApiRoute } from "@/lib/api/outside-api";
import { queryKeys } from "./keys";
import { rereadEvery } from "./no-answer";

/**
 * How often it is read again while shown: it follows the apiserver's metrics, which the
 * dashboard scrapes every 15 s, and the stored decisions.
 */
const OUTSIDE_API_REREAD_MS = 15_000;

export const outsideApiQuery = (context: string) =>
  queryOptions({
    queryKey: queryKeys.outsideApi(context),
    queryFn: ({ signal }) => callApi(outsideApiRoute, { signal }),
    refetchInterval: rereadEvery(OUTSIDE_API_REREAD_MS),
  });
