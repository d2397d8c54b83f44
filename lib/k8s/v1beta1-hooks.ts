/**
 * Where the v1beta1 webhook configurations (Kubernetes 1.9–1.21) are read, from discovery. Pure.
 *
 * A cluster of those versions serves them in admissionregistration.k8s.io/v1beta1; a current one
 * can serve their historical shape as custom resources in the configured legacy group, which
 * then wins (writes go there too: server/kube/legacy-admission.ts). They are kept apart from the
 * v1 kinds, whose kind and plural they share.
 */
import { ADMISSION_GROUP, KNOWN_ADMISSION_KINDS } from "./admission-apis";
import { LEGACY_KIND_OF, V1BETA1_HOOK_RESOURCES, type V1beta1HookResource } from "./legacy-kinds";
import type { ServedKind } from "./served-kinds";

interface ApiVersionResources {
  group?: string;
  version: string;
  resources: Array<{ name: string; kind: string }>;
}

/** A served v1beta1 webhook kind: `known.resource` is the dashboard's route key. */
export interface ServedV1beta1Kind extends ServedKind {
  resource: V1beta1HookResource;
}

/** The v1beta1 webhook configuration kinds discovery finds served, mutating first. */
export function servedV1beta1HookKinds(apis: readonly ApiVersionResources[]): ServedV1beta1Kind[] {
  const out: ServedV1beta1Kind[] = [];
  for (const resource of V1BETA1_HOOK_RESOURCES) {
    const k = LEGACY_KIND_OF[resource];
    const serves = (v: ApiVersionResources) =>
      v.version === "v1beta1" && v.resources.some((r) => r.name === k.plural && r.kind === k.kind);
    const legacy = apis.find(
      (v) => v.group !== undefined && v.group !== ADMISSION_GROUP && serves(v),
    );
    const real = apis.find((v) => (v.group ?? ADMISSION_GROUP) === ADMISSION_GROUP && serves(v));
    const at = legacy ?? real;
    if (!at) continue;
    const known = KNOWN_ADMISSION_KINDS.find((x) => x.kind === k.kind);
    if (!known) continue;
    out.push({
      resource,
      known: { ...known, resource },
      served: ["v1beta1"],
      readAt: { group: at.group ?? ADMISSION_GROUP, version: "v1beta1", resource: k.plural },
    });
  }
  return out;
}
