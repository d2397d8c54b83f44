/** Matches discovery results against the known admission kinds (pure). */
import { ADMISSION_GROUP, KNOWN_ADMISSION_KINDS, type KnownAdmissionKind } from "./admission-apis";
import type { ResourceRef } from "./resources";
import { LEGACY_GROUP_KINDS } from "./legacy-group";

export interface ServedKind {
  known: KnownAdmissionKind;
  /** Versions the cluster serves this kind at, preferred version order. */
  served: string[];
  /** The version the dashboard reads it at (the first served of v1, v1beta1, v1alpha1). */
  readAt?: ResourceRef;
}

const VERSION_PREFERENCE = ["v1", "v1beta1", "v1alpha1"];

/**
 * Every known kind with the versions discovery says are served; unknown served kinds are appended.
 * Another group (the configured legacy group) counts only for the historical kinds it stands in
 * for: its v1beta1 webhook configurations are not the cluster's webhook configurations.
 */
export function servedKinds(
  apis: Array<{
    /** Defaults to admissionregistration.k8s.io; the legacy group for historical kinds. */
    group?: string;
    version: string;
    resources: Array<{ name: string; kind: string }>;
  }>,
): ServedKind[] {
  const known = [...KNOWN_ADMISSION_KINDS];
  const admission = (v: { group?: string }) => v.group === undefined || v.group === ADMISSION_GROUP;
  apis = apis.map((v) =>
    admission(v)
      ? v
      : { ...v, resources: v.resources.filter((r) => LEGACY_GROUP_KINDS.has(r.kind)) },
  );
  for (const v of apis) {
    for (const r of v.resources) {
      if (!known.some((k) => k.resource === r.name)) {
        known.push({
          kind: r.kind,
          resource: r.name,
          versions: [v.version],
          role: "validating",
          history: "not known to this dashboard",
          counted: true,
        });
      }
    }
  }
  return known.map((k) => {
    const served = apis
      .filter((v) => v.resources.some((r) => r.name === k.resource))
      .map((v) => v.version)
      .sort((a, b) => rank(a) - rank(b));
    const first = served[0];
    const at = apis.find(
      (v) => v.version === first && v.resources.some((r) => r.name === k.resource),
    );
    return {
      known: k,
      served,
      readAt: first
        ? { group: at?.group ?? ADMISSION_GROUP, version: first, resource: k.resource }
        : undefined,
    };
  });
}

function rank(v: string): number {
  const i = VERSION_PREFERENCE.indexOf(v);
  return i === -1 ? VERSION_PREFERENCE.length : i;
}
