/** The static manifest directories the dashboard reads (lib/api/admission-manifests.ts). */
import { queryOptions } from "@tanstack/react-query";
import { callApi } from "@/lib/api/client";
import { admissionManifestsRoute } from "@/lib/api/admission-manifests";
import { queryKeys } from "./keys";
import { rereadEvery } from "./no-answer";

/**
 * How often the directories are read again while shown: the server re-reads them when their
 * files change, and a page follows within this long.
 */
const ADMISSION_MANIFESTS_REREAD_MS = 15_000;

export const admissionManifestsQuery = (context: string) =>
  queryOptions({
    queryKey: queryKeys.admissionManifests(context),
    queryFn: ({ signal }) => callApi(admissionManifestsRoute, { signal }),
    refetchInterval: rereadEvery(ADMISSION_MANIFESTS_REREAD_MS),
    staleTime: 5_000,
  });
