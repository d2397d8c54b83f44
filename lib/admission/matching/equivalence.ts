/**
 * The apiserver's EquivalentResourceMapper, rebuilt from discovery data: which GVRs are the same
 * stored resource, and which kind a request is converted to for each of them.
 */
import type { GroupVersionKind, GroupVersionResource } from "@/lib/admission/model/request";
import type { DiscoveryResource } from "@/lib/admission/model/snapshot";

/** An equivalent resource and the kind the object is converted to for it. */
export interface Equivalent {
  readonly gvr: GroupVersionResource;
  readonly kind: GroupVersionKind;
}

/** Lookup of equivalents by request GVR + subresource. */
export interface EquivalenceIndex {
  /**
   * The versions of the same stored resource that serve `subresource` (`""`: the resource
   * itself), the request's own included: `EquivalentResourcesFor` lists only resources registered
   * with that subresource, so a version without it is never matched or converted to.
   */
  equivalentsFor(gvr: GroupVersionResource, subresource: string): readonly Equivalent[];
  /** Discovery entry for a GVR, when known. */
  resourceInfo(gvr: GroupVersionResource): DiscoveryResource | undefined;
}

const gvrKey = (g: string, v: string, r: string): string => `${g}/${v}/${r}`;

/** Builds the index once; lookups are memoised per (gvr, subresource). */
export function buildEquivalenceIndex(discovery: readonly DiscoveryResource[]): EquivalenceIndex {
  const byGvr = new Map<string, DiscoveryResource>();
  const byKey = new Map<string, DiscoveryResource[]>();
  for (const d of discovery) {
    byGvr.set(gvrKey(d.group, d.version, d.resource), d);
    const key = d.equivalenceKey ?? `${d.group}/${d.resource}`;
    const list = byKey.get(key);
    if (list) list.push(d);
    else byKey.set(key, [d]);
  }
  const memo = new Map<string, readonly Equivalent[]>();
  return {
    resourceInfo(gvr) {
      return byGvr.get(gvrKey(gvr.group, gvr.version, gvr.resource));
    },
    equivalentsFor(gvr, subresource) {
      const k = `${gvrKey(gvr.group, gvr.version, gvr.resource)}/${subresource}`;
      const hit = memo.get(k);
      if (hit) return hit;
      const self = byGvr.get(gvrKey(gvr.group, gvr.version, gvr.resource));
      const members = self
        ? (byKey.get(self.equivalenceKey ?? `${self.group}/${self.resource}`) ?? [])
        : [];
      const out: Equivalent[] = [];
      for (const m of members) {
        let kind: GroupVersionKind = { group: m.group, version: m.version, kind: m.kind };
        if (subresource !== "") {
          const sub = m.subresources?.find((s) => s.name === subresource);
          if (!sub) continue;
          kind = sub.kind ?? kind;
        }
        out.push({ gvr: { group: m.group, version: m.version, resource: m.resource }, kind });
      }
      memo.set(k, out);
      return out;
    },
  };
}
