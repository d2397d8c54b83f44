import "server-only";
import type { KubeClient } from "@/server/kube/client";
import { KubeApiError } from "@/lib/k8s/errors";

/** The Cluster Inventory API's group (kubernetes-sigs/cluster-inventory-api). */
const CLUSTER_INVENTORY_GROUP = "multicluster.x-k8s.io";

/** A ClusterProfile as the fleet reads it. */
export interface ListedProfile {
  /** The context whose cluster serves it. */
  context: string;
  namespace: string;
  name: string;
  displayName?: string;
  manager?: string;
  reportedVersion?: string;
  /** The API servers its access providers (v1alpha2) or credential providers (v1alpha1) name. */
  servers: string[];
}

interface RawProfile {
  metadata?: { name?: string; namespace?: string };
  spec?: { displayName?: string; clusterManager?: { name?: string } };
  status?: {
    version?: { kubernetes?: string };
    accessProviders?: Array<{ cluster?: { server?: string } }>;
    credentialProviders?: Array<{ cluster?: { server?: string } }>;
  };
}

/** A server URL as compared with a kubeconfig's: scheme, host and port, lowercased, no trailing /. */
export function serverKey(server: string): string {
  try {
    const u = new URL(server);
    const port = u.port || (u.protocol === "https:" ? "443" : "80");
    return `${u.protocol}//${u.hostname.toLowerCase()}:${port}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    return server.trim().toLowerCase().replace(/\/+$/, "");
  }
}

/**
 * The ClusterProfiles the cluster serves (every namespace), at the group's preferred version;
 * none when the Cluster Inventory API is not served. One that may not be listed is a notice.
 */
export async function readClusterProfiles(
  client: KubeClient,
  context: string,
  notices: string[],
  signal?: AbortSignal,
): Promise<ListedProfile[]> {
  let version: string | undefined;
  try {
    const group = await client.request<{ preferredVersion?: { version?: string } }>({
      path: `/apis/${CLUSTER_INVENTORY_GROUP}`,
      signal,
    });
    version = group.preferredVersion?.version;
  } catch (e) {
    if (e instanceof KubeApiError && e.status === 404) return [];
    throw e;
  }
  if (!version) return [];
  let items: RawProfile[];
  try {
    items =
      (
        await client.request<{ items?: RawProfile[] }>({
          path: `/apis/${CLUSTER_INVENTORY_GROUP}/${version}/clusterprofiles`,
          signal,
        })
      ).items ?? [];
  } catch (e) {
    if (e instanceof KubeApiError && (e.status === 403 || e.status === 404)) {
      notices.push(
        `cannot list clusterprofiles.${CLUSTER_INVENTORY_GROUP} (${e.status} ${e.reason}): the clusters they list are not shown`,
      );
      return [];
    }
    throw e;
  }
  return items.map((p) => {
    const providers = [
      ...(p.status?.accessProviders ?? []),
      ...(p.status?.credentialProviders ?? []),
    ];
    const servers = [
      ...new Set(
        providers
          .map((a) => a.cluster?.server)
          .filter((s): s is string => typeof s === "string" && s !== ""),
      ),
    ];
    return {
      context,
      namespace: p.metadata?.namespace ?? "",
      name: p.metadata?.name ?? "",
      ...(p.spec?.displayName ? { displayName: p.spec.displayName } : {}),
      ...(p.spec?.clusterManager?.name ? { manager: p.spec.clusterManager.name } : {}),
      ...(p.status?.version?.kubernetes ? { reportedVersion: p.status.version.kubernetes } : {}),
      servers,
    };
  });
}
