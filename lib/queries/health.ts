/** The Health page's query of the health report (lib/api/health.ts). */
import { queryOptions } from "@tanstack/react-query";
import { callApi } from "@/lib/api/client";
import {
  admissionHealthRoute,
  healthQueryInput,
  healthUrl,
  type HealthFilter,
} from "@/lib/api/health";
import { queryKeys } from "./keys";
import { rereadEvery } from "./no-answer";

/**
 * How often a health report is read again while shown (sooner while the cluster does not
 * answer, so the page fills in once it does).
 */
export const HEALTH_REREAD_MS = 15_000;

export const healthQuery = (context: string, filter: HealthFilter = {}) =>
  queryOptions({
    queryKey: queryKeys.health(context, healthUrl(filter)),
    queryFn: ({ signal }) =>
      callApi(admissionHealthRoute, { input: healthQueryInput(filter), signal }),
    refetchInterval: rereadEvery(HEALTH_REREAD_MS),
  });
