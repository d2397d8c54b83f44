import "server-only";
import type { V1APIGroup, V1APIResource } from "@/lib/k8s/types";
import { ADMISSION_GROUP } from "@/lib/k8s/admission-apis";
import type { KubeClient } from "./client";
import { KubeApiError } from "@/lib/k8s/errors";
import { LEGACY_GROUP_DISCOVERED_KINDS, legacyGroupFromEnv } from "@/lib/k8s/legacy-group";
import type { ServedVersion, ServerVersion } from "@/lib/api/overview";

/** The apiserver's /version. */
export async function serverVersion(
  client: KubeClient,
  signal?: AbortSignal,
): Promise<ServerVersion> {
  return client.request<ServerVersion>({ path: "/version", signal });
}

/** The served versions of one group with their resources (`keep` picks the kinds). */
async function groupApis(
  client: KubeClient,
  groupName: string,
  keep: (kind: string) => boolean,
  signal?: AbortSignal,
): Promise<ServedVersion[]> {
  let group: V1APIGroup;
  try {
    group = await client.request<V1APIGroup>({ path: `/apis/${groupName}`, signal });
  } catch (e) {
    if (e instanceof KubeApiError && e.status === 404) return [];
    throw e;
  }
  const preferred = group.preferredVersion?.version;
  const versions = await Promise.all(
    group.versions.map(async (v) => {
      const list = await client.request<{ resources: V1APIResource[] }>({
        path: `/apis/${groupName}/${v.version}`,
        signal,
      });
      return {
        group: groupName,
        version: v.version,
        preferred: v.version === preferred,
        resources: list.resources
          .filter((r) => !r.name.includes("/") && keep(r.kind))
          .map((r) => ({ name: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs })),
      };
    }),
  );
  return versions.filter((v) => v.resources.length > 0 || groupName === ADMISSION_GROUP);
}

/**
 * Every version of admissionregistration.k8s.io the cluster serves, with its resources
 * (subresources left out), read from discovery, followed by the versions of the configured legacy
 * group (PORTCULLIS_LEGACY_ADMISSION_GROUP) that serve historical kinds (v1beta1 webhook
 * configurations included). Empty when neither is served.
 */
export async function admissionApis(
  client: KubeClient,
  signal?: AbortSignal,
): Promise<ServedVersion[]> {
  const legacy = legacyGroupFromEnv();
  const [modern, old] = await Promise.all([
    groupApis(client, ADMISSION_GROUP, () => true, signal),
    legacy
      ? groupApis(client, legacy, (kind) => LEGACY_GROUP_DISCOVERED_KINDS.has(kind), signal)
      : Promise.resolve([]),
  ]);
  return [...modern, ...old];
}
