import "server-only";
import { KubeApiError } from "@/lib/k8s/errors";
import { canIPath } from "@/server/kube/access";
import { clientFor } from "@/server/kube/identity";

/**
 * The non-resource URL whose `get` an identity needs to read admission decisions. Decisions
 * carry users, groups, request URIs and denial messages from the whole cluster, so the apiserver
 * decides who reads them: grant it in a ClusterRole (`nonResourceURLs: ["/portcullis/decisions"],
 * verbs: ["get"]`); cluster-admin's `*` already includes it.
 */
export const DECISIONS_URL = "/portcullis/decisions";

/** Throws 403 unless the request's identity may read decisions (a SelfSubjectAccessReview). */
export async function authorizeDecisionsRead(request: Request): Promise<void> {
  const client = clientFor(request);
  const allowed = await canIPath(client, { path: DECISIONS_URL, verb: "get" }, request.signal);
  if (!allowed) {
    throw new KubeApiError({
      status: 403,
      reason: "Forbidden",
      message: `this identity may not read admission decisions: the apiserver does not allow it "get" on the non-resource URL ${DECISIONS_URL} (grant it in a ClusterRole)`,
      cluster: client.server,
    });
  }
}
