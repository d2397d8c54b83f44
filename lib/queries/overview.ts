import { queryOptions } from "@tanstack/react-query";
import { callApi } from "@/lib/api/client";
import { overviewRoute } from "@/lib/api/overview";
import { admissionConfigRoute } from "@/lib/api/admission-config";
import { queryKeys } from "./keys";

export const overviewQuery = (context: string) =>
  queryOptions({
    queryKey: queryKeys.overview(context),
    queryFn: ({ signal }) => callApi(overviewRoute, { signal }),
    retry: false,
  });

/** The apiserver's AdmissionConfiguration as the dashboard was given it (PodSecurity defaults). */
export const admissionConfigQuery = () =>
  queryOptions({
    queryKey: queryKeys.admissionConfig(),
    queryFn: ({ signal }) => callApi(admissionConfigRoute, { signal }),
    retry: false,
    staleTime: 60_000,
  });
