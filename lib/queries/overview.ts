import { queryOptions } from "@tanstack/react-query";
import { apiFetch } from "./fetch";
import { queryKeys } from "./keys";

export interface ServedVersion {
  version: string;
  preferred: boolean;
  resources: Array<{ name: string; kind: string; namespaced: boolean; verbs: string[] }>;
}

/** The apiserver's /version, as far as the dashboard reads it. */
export interface ServerVersion {
  gitVersion: string;
  platform?: string;
  goVersion?: string;
}

export interface OverviewData {
  context: string;
  server: string;
  version: ServerVersion;
  apis: ServedVersion[];
}

export const overviewQuery = (context: string) =>
  queryOptions({
    queryKey: queryKeys.overview(context),
    queryFn: ({ signal }) => apiFetch<OverviewData>("/api/overview", { signal }),
    retry: false,
  });
