/**
 * Discovery documents (/api/v1, /apis/<group>/<version>) turned into the resource list the
 * admission predictor needs for matchPolicy Equivalent and subresource kinds. Pure.
 */
import type { V1APIResource } from "@/lib/k8s/types";
import type { DiscoveryResource } from "@/lib/admission/model/snapshot";

/** One fetched discovery document: the resources of one group/version. */
export interface GroupVersionResources {
  group: string;
  version: string;
  resources: readonly V1APIResource[];
}

/**
 * Flattens discovery documents into DiscoveryResource entries with their subresources (marked
 * `custom` where a CustomResourceDefinition defines them). Resources
 * reporting the same storageVersionHash share storage: that is the equivalence matchPolicy
 * Equivalent follows (without a hash, the default `<group>/<resource>` applies).
 */
export function discoveryResources(
  docs: readonly GroupVersionResources[],
  /** The resources CustomResourceDefinitions define, as `<group>/<plural>`. */
  custom: ReadonlySet<string> = new Set(),
): DiscoveryResource[] {
  const out: DiscoveryResource[] = [];
  for (const doc of docs) {
    const parents = doc.resources.filter((r) => !r.name.includes("/"));
    for (const p of parents) {
      const subresources = doc.resources
        .filter((r) => r.name.startsWith(`${p.name}/`))
        .map((r) => ({
          name: r.name.slice(p.name.length + 1),
          kind: {
            group: r.group ?? doc.group,
            version: r.version ?? doc.version,
            kind: r.kind,
          },
          verbs: r.verbs,
        }));
      out.push({
        group: doc.group,
        version: doc.version,
        resource: p.name,
        kind: p.kind,
        namespaced: p.namespaced,
        verbs: p.verbs,
        subresources,
        ...(p.storageVersionHash ? { equivalenceKey: `hash:${p.storageVersionHash}` } : {}),
        ...(custom.has(`${doc.group}/${p.name}`) ? { custom: true } : {}),
      });
    }
  }
  return out;
}
