/**
 * The Initializers page's uninitialized objects (GET /api/initializers/uninitialized): the
 * response shape, defined once for the route handler and the page.
 */
import { queryOptions } from "@tanstack/react-query";
import type {
  CoveredCollection,
  UninitializedReport,
} from "@/lib/admission/historical/uninitialized";
import { rereadEvery } from "./no-answer";
import { apiFetch } from "./fetch";
import { queryKeys } from "./keys";

/** GET /api/initializers/uninitialized?stuckAfterSeconds=N */
export type UninitializedData =
  | {
      /** The real admissionregistration.k8s.io/v1alpha1 API does not serve InitializerConfiguration. */
      served: false;
      reason: string;
    }
  | {
      served: true;
      /** When the lists were read (ISO time): ages are as of then. */
      readAt: string;
      stuckAfterSeconds: number;
      /** The collections listed with `?includeUninitialized=true`. */
      covered: CoveredCollection[];
      report: UninitializedReport;
      /** What could not be read. */
      notices: string[];
    };

export const uninitializedQuery = (context: string, stuckAfterSeconds: number) =>
  queryOptions({
    queryKey: queryKeys.uninitialized(context, stuckAfterSeconds),
    queryFn: ({ signal }) =>
      apiFetch<UninitializedData>(
        `/api/initializers/uninitialized?stuckAfterSeconds=${stuckAfterSeconds}`,
        { signal },
      ),
    staleTime: 10_000,
    // Objects get stuck (or initialized) by the second: read again while shown.
    refetchInterval: rereadEvery(15_000),
    retry: false,
  });
