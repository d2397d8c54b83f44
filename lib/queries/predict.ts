/**
 * The predict page's data: the admission state of the tab's identity (read once, predicted from
 * in the browser), objects picked from the cluster, and the apiserver's own verdict on a dry run.
 * The response shapes are defined here once, for the route handlers and the page.
 */
import { queryOptions } from "@tanstack/react-query";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type { RequestUserInfo } from "@/lib/admission/model/request";
import type { AdmissionOperation } from "@/lib/k8s/types";
import type { DecisionRecord } from "@/lib/admission/audit/audit";
import { rereadEvery } from "./no-answer";
import { apiFetch } from "./fetch";
import { queryKeys } from "./keys";

/** GET /api/predict/state */
export interface PredictStateData {
  context: string;
  snapshot: AdmissionSnapshot;
  identity: RequestUserInfo | undefined;
  notices: string[];
}

/**
 * How often the predict page reads the admission state again while shown (and whenever the tab
 * is shown again): a configuration, policy or namespace changed elsewhere is predicted with.
 */
export const PREDICT_STATE_REREAD_MS = 30_000;

export const predictStateQuery = (context: string) =>
  queryOptions({
    queryKey: queryKeys.predictState(context),
    queryFn: ({ signal }) => apiFetch<PredictStateData>("/api/predict/state", { signal }),
    retry: false,
    staleTime: PREDICT_STATE_REREAD_MS,
    refetchInterval: rereadEvery(PREDICT_STATE_REREAD_MS),
    // An admin who changed a hook in another tab comes back to this one: read it now.
    refetchOnWindowFocus: "always",
  });

/** GET /api/predict/object?resource=G/V/R&namespace=NS[&name=N]: one object, or the names. */
export type PickData =
  | { kind: "names"; names: string[]; truncated: boolean }
  | { kind: "object"; object: Record<string, unknown> };

/** Reads names of a resource (no `name`) or one object, as the tab's identity. */
export function pickFromCluster(
  resource: string,
  namespace: string,
  name: string | undefined,
  signal?: AbortSignal,
): Promise<PickData> {
  const q = new URLSearchParams({ resource, namespace });
  if (name) q.set("name", name);
  return apiFetch<PickData>(`/api/predict/object?${q.toString()}`, { signal });
}

/** POST /api/predict/dry-run body. */
export interface DryRunInput {
  operation: AdmissionOperation;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** "" when cluster-scoped. */
  namespace: string;
  name: string;
  object: Record<string, unknown> | null;
}

/**
 * The apiserver's verdict on a server-side dry run; `auditID` names the request's audit event
 * (the dashboard sent it as the request's Audit-ID).
 */
export type DryRunVerdict =
  | { outcome: "allowed"; status: number; warnings: string[]; auditID: string }
  | {
      outcome: "denied" | "error";
      status: number;
      reason: string;
      message: string;
      warnings: string[];
      auditID: string;
    }
  | { outcome: "unsupported"; message: string; warnings: string[] };

/** Sends the request as a server-side dry run as the tab's identity. */
export function dryRunRequest(input: DryRunInput): Promise<DryRunVerdict> {
  return apiFetch<DryRunVerdict>("/api/predict/dry-run", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(input),
  });
}

/** The decisions the audit feed stored for one request (GET /api/decisions?auditID=…). */
export interface DecisionsData {
  items: DecisionRecord[];
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
      return apiFetch<DecisionsData>(`/api/decisions?${q.toString()}`, { signal });
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
