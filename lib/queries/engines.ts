/** The Engines page's query (lib/api/engines.ts). */
import { queryOptions } from "@tanstack/react-query";
import { callApi } from "@/lib/api/client";
import { enginesRoute } from "@/lib/api/engines";
import { queryKeys } from "./keys";
import { rereadEvery } from "./no-answer";

/** How often the engines are read again while shown. */
const ENGINES_REREAD_MS = 15_000;

export const enginesQuery = (context: string) =>
  queryOptions({
    queryKey: queryKeys.engines(context),
    queryFn: ({ signal }) => callApi(enginesRoute, { input: {}, signal }),
    refetchInterval: rereadEvery(ENGINES_REREAD_MS),
  });
