import "server-only";
import type { KubeClient } from "@/server/kube/client";
import { readDiscovery } from "@/server/kube/admission-state";
import { discoveryResources, type GroupVersionResources } from "@/lib/k8s/discovery";
import type { DiscoveryResource } from "@/lib/admission/model/snapshot";
import type { V1APIResource } from "@/lib/k8s/types";

/** Aggregated discovery (apidiscovery.k8s.io/v2, served since Kubernetes 1.30), plain JSON else. */
const AGGREGATED =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";

interface AggregatedList {
  kind?: string;
  items?: Array<{
    metadata?: { name?: string };
    versions?: Array<{
      version: string;
      freshness?: string;
      resources?: Array<{
        resource: string;
        responseKind?: { group?: string; version?: string; kind?: string };
        scope?: string;
        verbs?: string[];
        subresources?: Array<{
          subresource: string;
          responseKind?: { group?: string; version?: string; kind?: string };
          verbs?: string[];
        }>;
      }>;
    }>;
  }>;
}

function documents(list: AggregatedList, notices: string[]): GroupVersionResources[] {
  const out: GroupVersionResources[] = [];
  for (const g of list.items ?? []) {
    const group = g.metadata?.name ?? "";
    for (const v of g.versions ?? []) {
      if (v.freshness === "Stale") {
        notices.push(
          `discovery of ${group || "core"}/${v.version} is stale (its aggregated API is down): its resources are unknown`,
        );
        continue;
      }
      const resources: V1APIResource[] = [];
      for (const r of v.resources ?? []) {
        resources.push({
          name: r.resource,
          kind: r.responseKind?.kind ?? "",
          namespaced: r.scope === "Namespaced",
          verbs: r.verbs ?? [],
          singularName: "",
        });
        for (const s of r.subresources ?? [])
          resources.push({
            name: `${r.resource}/${s.subresource}`,
            kind: s.responseKind?.kind ?? "",
            namespaced: r.scope === "Namespaced",
            verbs: s.verbs ?? [],
            singularName: "",
            ...(s.responseKind?.group !== undefined ? { group: s.responseKind.group } : {}),
            ...(s.responseKind?.version ? { version: s.responseKind.version } : {}),
          });
      }
      out.push({ group, version: v.version, resources });
    }
  }
  return out;
}

/**
 * Every served resource in two requests (aggregated discovery of /api and /apis) instead of one
 * per group version: the fleet reads many clusters at once. A cluster that does not serve
 * aggregated discovery is read as the other pages read it (server/kube/admission-state.ts).
 * Aggregated discovery carries no storage version hashes: resources are equivalent by the
 * default (`<group>/<resource>`) only.
 */
export async function fleetDiscovery(
  client: KubeClient,
  notices: string[],
  signal?: AbortSignal,
): Promise<DiscoveryResource[]> {
  const [core, groups] = await Promise.all(
    ["/api", "/apis"].map((path) =>
      client.request<AggregatedList>({ path, accept: AGGREGATED, signal }),
    ),
  );
  if (core?.kind !== "APIGroupDiscoveryList" || groups?.kind !== "APIGroupDiscoveryList")
    return readDiscovery(client, notices, signal);
  return discoveryResources([...documents(core, notices), ...documents(groups, notices)]);
}
