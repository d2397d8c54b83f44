import "server-only";
import type { V1APIGroup, V1APIResource } from "@/lib/k8s/types";
import { ADMISSION_GROUP } from "@/lib/k8s/admission-apis";
import type { KubeClient } from "./client";
import { KubeApiError } from "@/lib/k8s/errors";
import type { ServedVersion, ServerVersion } from "@/lib/queries/overview";

/** The apiserver's /version. */
export async function serverVersion(
  client: KubeClient,
  signal?: AbortSignal,
): Promise<ServerVersion> {
  return client.request<ServerVersion>({ path: "/version", signal });
}

/**
 * Every version of admissionregistration.k8s.io the cluster serves, with its resources
 * (subresources left out), read from discovery. An empty list when the group is not served.
 */
export async function admissionApis(
  client: KubeClient,
  signal?: AbortSignal,
): Promise<ServedVersion[]> {
  let group: V1APIGroup;
  try {
    group = await client.request<V1APIGroup>({ path: `/apis/${ADMISSION_GROUP}`, signal });
  } catch (e) {
    if (e instanceof KubeApiError && e.status === 404) return [];
    throw e;
  }
  const preferred = group.preferredVersion?.version;
  return Promise.all(
    group.versions.map(async (v) => {
      const list = await client.request<{ resources: V1APIResource[] }>({
        path: `/apis/${ADMISSION_GROUP}/${v.version}`,
        signal,
      });
      return {
        version: v.version,
        preferred: v.version === preferred,
        resources: list.resources
          .filter((r) => !r.name.includes("/"))
          .map((r) => ({ name: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs })),
      };
    }),
  );
}
