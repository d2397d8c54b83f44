import "server-only";
import type { KubeClient } from "./client";
import { KubeApiError } from "@/lib/k8s/errors";
import type { V1APIResource } from "@/lib/k8s/types";

/** The discovery path of an apiVersion: `/api/v1` for the core group, else `/apis/<group>/<version>`. */
export function groupVersionPath(apiVersion: string): string {
  return apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/** The resources a group version serves, subresources included; undefined when it is not served. */
export async function groupVersionResources(
  client: KubeClient,
  apiVersion: string,
  signal?: AbortSignal,
): Promise<V1APIResource[] | undefined> {
  try {
    const l = await client.request<{ resources?: V1APIResource[] }>({
      path: groupVersionPath(apiVersion),
      signal,
    });
    return l.resources ?? [];
  } catch (e) {
    if (e instanceof KubeApiError && e.status === 404) return undefined;
    throw e;
  }
}

/** Discovery results by apiVersion, for the lifetime of one request. */
export type KindCache = Map<string, Promise<V1APIResource[] | undefined>>;

/**
 * The collection that serves `kind` in `apiVersion`, from the cluster's discovery (subresources
 * left out); undefined when the group/version or the kind is not served.
 */
export async function resourceForKind(
  client: KubeClient,
  apiVersion: string,
  kind: string,
  cache: KindCache = new Map(),
  signal?: AbortSignal,
): Promise<V1APIResource | undefined> {
  let p = cache.get(apiVersion);
  if (!p) {
    p = groupVersionResources(client, apiVersion, signal);
    cache.set(apiVersion, p);
  }
  return (await p)?.find((r) => r.kind === kind && !r.name.includes("/"));
}
