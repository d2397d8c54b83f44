import "server-only";
import type { KubeClient } from "./client";
import { KubeApiError } from "@/lib/k8s/errors";
import { ADMISSION_GROUP } from "@/lib/k8s/admission-apis";
import { collectionPath } from "@/lib/k8s/resources";
import type { InitializerConfiguration } from "@/lib/admission/model/snapshot";
import {
  analyzeUninitialized,
  coveredCollections,
  pendingObjects,
  type ListedObject,
  type UninitializedObject,
} from "@/lib/admission/historical/uninitialized";
import type { UninitializedData } from "@/lib/api/initializers";
import { readDiscovery } from "./admission-state";

const V1ALPHA1 = `/apis/${ADMISSION_GROUP}/v1alpha1`;

/** At most this many collections are listed at once. */
const PARALLEL = 4;

/**
 * The objects still waiting for their initializers (Kubernetes 1.7–1.13): only where the real
 * admissionregistration.k8s.io/v1alpha1 API serves InitializerConfiguration — custom resources in
 * a group of one's own hold nothing back. Lists every collection the configurations cover with
 * `?includeUninitialized=true` as the request's identity; what it may not list is a notice.
 */
export async function readUninitialized(
  client: KubeClient,
  opts: { stuckAfterSeconds: number; now?: number; signal?: AbortSignal },
): Promise<UninitializedData> {
  const { signal } = opts;
  let served = false;
  try {
    const list = await client.request<{ resources?: Array<{ name: string }> }>({
      path: V1ALPHA1,
      signal,
    });
    served = (list.resources ?? []).some((r) => r.name === "initializerconfigurations");
  } catch (e) {
    if (!(e instanceof KubeApiError && e.status === 404)) throw e;
  }
  if (!served)
    return {
      served: false,
      reason:
        "admissionregistration.k8s.io/v1alpha1 does not serve InitializerConfiguration here: only Kubernetes 1.7–1.13 apiservers hold objects back for initializers.",
    };
  const configs = await client.request<{ items?: InitializerConfiguration[] }>({
    path: `${V1ALPHA1}/initializerconfigurations`,
    signal,
  });
  const notices: string[] = [];
  const discovery = await readDiscovery(client, notices, signal);
  const covered = coveredCollections(configs.items ?? [], discovery);
  const now = opts.now ?? Date.now();
  const objects: UninitializedObject[] = [];
  for (let i = 0; i < covered.length; i += PARALLEL) {
    await Promise.all(
      covered.slice(i, i + PARALLEL).map(async (c) => {
        try {
          const list = await client.request<{ items?: ListedObject[] }>({
            path: collectionPath(c),
            query: { includeUninitialized: "true" },
            signal,
          });
          objects.push(...pendingObjects(c, list.items ?? [], now, opts.stuckAfterSeconds));
        } catch (e) {
          if (signal?.aborted) throw e;
          const why = e instanceof KubeApiError ? `${e.status} ${e.reason}` : String(e);
          notices.push(`cannot list ${collectionPath(c)} (${why}): its objects are not shown`);
        }
      }),
    );
  }
  return {
    served: true,
    readAt: new Date(now).toISOString(),
    stuckAfterSeconds: opts.stuckAfterSeconds,
    covered,
    report: analyzeUninitialized(objects, covered),
    notices,
  };
}
