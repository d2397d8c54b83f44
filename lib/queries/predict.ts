/**
 * The predict page's data: the admission state of the tab's identity (read once, predicted from
 * in the browser), objects picked from the cluster, and the apiserver's own verdict on a dry run
 * (lib/api/predict.ts).
 */
import { queryOptions } from "@tanstack/react-query";
import { callApi } from "@/lib/api/client";
import { decisionListRoute } from "@/lib/api/decisions";
import {
  dryRunRoute,
  pickObjectRoute,
  predictStateRoute,
  type DryRunInput,
  type DryRunVerdict,
  type PickData,
} from "@/lib/api/predict";
import { rereadEvery } from "./no-answer";
import { queryKeys } from "./keys";

/**
 * How often the predict page reads the admission state again while shown (and whenever the tab
 * is shown again): a configuration, policy or namespace changed elsewhere is predicted with.
 */
export const PREDICT_STATE_REREAD_MS = 30_000;

export const predictStateQuery = (context: string) =>
  queryOptions({
    queryKey: queryKeys.predictState(context),
    queryFn: ({ signal }) => callApi(predictStateRoute, { signal }),
    retry: false,
    staleTime: PREDICT_STATE_REREAD_MS,
    refetchInterval: rereadEvery(PREDICT_STATE_REREAD_MS),
    // An admin who changed a hook in another tab comes back to this one: read it now.
    refetchOnWindowFocus: "always",
  });

/** Reads names of a resource (no `name`) or one object, as the tab's identity. */
export function pickFromCluster(
  resource: string,
  namespace: string,
  name: string | undefined,
  signal?: AbortSignal,
): Promise<PickData> {
  return callApi(pickObjectRoute, {
    input: name ? { resource, namespace, name } : { resource, namespace },
    signal,
  });
}

/** Sends the request as a server-side dry run as the tab's identity. */
export function dryRunRequest(input: DryRunInput): Promise<DryRunVerdict> {
  return callApi(dryRunRoute, { input });
}

const AUDIT_POLLS = 10;

/**
 * The audit feed's decisions for one request, asked again every second until its batch arrives
 * (the apiserver sends batches at least once a second), at most ten times.
 */
export const decisionsForQuery = (context: string, auditID: string) =>
  queryOptions({
    queryKey: queryKeys.decisionsFor(context, auditID),
    queryFn: ({ signal }) => {
      // The request was just sent: a time bound keeps the lookup to the newest rows.
      const from = String(Date.now() - 15 * 60_000);
      const q = new URLSearchParams({ auditID, from, limit: "100" });
      return callApi(decisionListRoute, { query: q.toString(), signal });
    },
    retry: false,
    staleTime: Infinity,
    refetchInterval: (q) =>
      q.state.error ||
      (q.state.data?.items.length ?? 0) > 0 ||
      q.state.dataUpdateCount >= AUDIT_POLLS
        ? false
        : 1000,
  });

/** True once the audit feed has been asked often enough to say the event did not come. */
export function auditGaveUp(dataUpdateCount: number): boolean {
  return dataUpdateCount >= AUDIT_POLLS;
}
