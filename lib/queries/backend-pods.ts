/** The browser side of /api/webhooks/backend-pods: the labels of the pods behind webhooks. */
import { queryOptions } from "@tanstack/react-query";
import type { WorkloadLike } from "@/lib/admission/lint/deadlock";
import { targetsQuery, type PodLabelTarget } from "@/lib/namespaces/backend-pods";
import { apiFetch } from "./fetch";
import { previousOfSameContext, queryKeys } from "./keys";
import { refetchWhileNoAnswer } from "./no-answer";

/** A pod as far as the deadlock map reads it: its metadata only. */
export interface PodMetadata {
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
}

/** A Deployment, StatefulSet, DaemonSet or ReplicaSet: its name and its pod template's labels. */
export interface WorkloadTemplate extends WorkloadLike {
  kind: "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet";
  metadata: { name: string; namespace: string };
  spec: { template: { metadata: { labels?: Record<string, string> } } };
}

/**
 * GET /api/webhooks/backend-pods?b=<namespace>/<selector>…: the pods each target's selector
 * selects, and (where none does) the workloads whose pod template it selects, as the request's
 * identity. What it may not list is named, not guessed.
 */
export interface BackendPodsData {
  pods: PodMetadata[];
  workloads: WorkloadTemplate[];
  /** Namespace → what the identity may not list there (403): `pods`, `deployments`, … */
  forbidden: Record<string, string[]>;
  /** What could not be read and what that limits, in words. */
  notices: string[];
}

/**
 * How often labels read from workload templates are read again. Nothing watches the workloads:
 * a backend with no pod running (a self-intercepting one, whose pods the hook itself refuses) is
 * judged by its templates, and the usual fix edits one, which changes no endpoints.
 */
export const TEMPLATE_REREAD_MS = 30_000;

/**
 * How soon an answer is read again: TEMPLATE_REREAD_MS when it holds workload templates (the
 * query asks sooner while the cluster does not answer, as every query does).
 */
export const templateReread = (data: BackendPodsData | undefined): number | false =>
  (data?.workloads.length ?? 0) > 0 ? TEMPLATE_REREAD_MS : false;

/**
 * The pod labels of the targets. `at` names the backends' EndpointSlices as they are now, so new
 * pods are read again; labels taken from workload templates are read again every
 * TEMPLATE_REREAD_MS. The previous answer of the same context stays shown meanwhile.
 */
export const backendPodsQuery = (
  context: string,
  targets: readonly PodLabelTarget[],
  at: string,
) => {
  const q = targetsQuery(targets);
  return queryOptions({
    queryKey: queryKeys.backendPods(context, q, at),
    queryFn: ({ signal }) =>
      apiFetch<BackendPodsData>(`/api/webhooks/backend-pods?${q}`, { signal }),
    staleTime: 30_000,
    refetchInterval: (query) => refetchWhileNoAnswer(query) || templateReread(query.state.data),
    retry: false,
    placeholderData: previousOfSameContext(context),
  });
};
