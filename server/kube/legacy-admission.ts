import "server-only";
import { legacyGroupFromEnv } from "@/lib/k8s/legacy-group";
import {
  LEGACY_KIND_OF,
  legacyGroupOrAdmission,
  type LegacyResource,
} from "@/lib/k8s/legacy-kinds";
import type { ObjectTarget } from "./webhooks";

/**
 * Where a historical kind is written: admissionregistration.k8s.io (v1alpha1, or v1beta1 for the
 * old webhook configurations) on a cluster that serves it, or the group
 * PORTCULLIS_LEGACY_ADMISSION_GROUP names.
 */
export function legacyTarget(r: LegacyResource): ObjectTarget {
  const k = LEGACY_KIND_OF[r];
  const group = legacyGroupOrAdmission(legacyGroupFromEnv());
  return {
    collection: `/apis/${group}/${k.version}/${k.plural}`,
    apiVersion: `${group}/${k.version}`,
    kind: k.kind,
    hooksField: k.hooksField,
  };
}
