import "server-only";
import { KubeApiError } from "@/lib/k8s/errors";
import type { KubeClient } from "@/server/kube/client";

/** The non-resource URL an admin grants `get` on to let an identity read the decision feed. */
export const DECISIONS_ACCESS_PATH = "/portcullis/decisions";

interface SelfSubjectAccessReview {
  status?: { allowed?: boolean; reason?: string };
}

/**
 * Refuses (403) unless the apiserver allows the client's identity `get` on the non-resource URL
 * /portcullis/decisions. Decisions name users, groups, objects and denial messages of the whole
 * cluster, so the dashboard's own access to them is no reason to show them to anyone.
 */
export async function requireDecisionAccess(
  client: KubeClient,
  signal?: AbortSignal,
): Promise<void> {
  const review = await client.request<SelfSubjectAccessReview>({
    method: "POST",
    path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
    body: {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { nonResourceAttributes: { path: DECISIONS_ACCESS_PATH, verb: "get" } },
    },
    signal,
  });
  if (review.status?.allowed === true) return;
  throw new KubeApiError({
    status: 403,
    reason: "Forbidden",
    message: `this identity may not read admission decisions: the cluster must allow "get" on the non-resource URL ${DECISIONS_ACCESS_PATH} (see the README's access section)`,
    cluster: client.server,
  });
}
