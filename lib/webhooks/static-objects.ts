/**
 * The static objects (loaded by the apiserver from its manifest directories) as the pages list
 * them: per dashboard resource, each object with its origin. Pure.
 */
import {
  manifestOriginKey,
  type ManifestKind,
  type ManifestOrigin,
} from "@/lib/admission/model/manifests";
import type { ManifestObjects } from "@/lib/admission/model/snapshot";
import { KIND_OF, type AdmissionResource } from "./resource-kinds";

/** One static object and where it comes from. */
export interface StaticObject<T = unknown> {
  readonly object: T;
  readonly origin: ManifestOrigin;
}

const LIST_OF: Record<AdmissionResource, keyof Omit<ManifestObjects, "origins">> = {
  mutatingwebhookconfigurations: "mutatingWebhookConfigurations",
  validatingwebhookconfigurations: "validatingWebhookConfigurations",
  validatingadmissionpolicies: "validatingAdmissionPolicies",
  validatingadmissionpolicybindings: "validatingAdmissionPolicyBindings",
  mutatingadmissionpolicies: "mutatingAdmissionPolicies",
  mutatingadmissionpolicybindings: "mutatingAdmissionPolicyBindings",
};

/** The static objects of one resource, each with its origin, in the directory's order. */
export function staticObjectsOf<T = unknown>(
  m: ManifestObjects | undefined,
  resource: AdmissionResource,
): StaticObject<T>[] {
  if (!m) return [];
  const kind = KIND_OF[resource] as ManifestKind;
  const list = m[LIST_OF[resource]] as ReadonlyArray<{ metadata?: { name?: string } }>;
  return list.flatMap((o) => {
    const origin = m.origins[manifestOriginKey(kind, o.metadata?.name ?? "")];
    return origin ? [{ object: o as T, origin }] : [];
  });
}

/** One static object by resource and name, if the directories hold it. */
export function staticObjectOf<T = unknown>(
  m: ManifestObjects | undefined,
  resource: AdmissionResource,
  name: string,
): StaticObject<T> | undefined {
  return staticObjectsOf<T>(m, resource).find(
    (s) => (s.object as { metadata?: { name?: string } }).metadata?.name === name,
  );
}
