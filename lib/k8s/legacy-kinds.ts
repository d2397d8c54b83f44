/**
 * The historical admission kinds the dashboard edits, where they are read, and the field that
 * holds their hooks. Pure; the group is admissionregistration.k8s.io on a cluster that still
 * serves them, or the configured legacy group (lib/k8s/legacy-group.ts).
 */
import { ADMISSION_GROUP } from "./admission-apis";

export const LEGACY_RESOURCES = [
  "initializerconfigurations",
  "externaladmissionhookconfigurations",
] as const;

export type LegacyResource = (typeof LEGACY_RESOURCES)[number];

export interface LegacyKindInfo {
  kind: string;
  version: "v1alpha1";
  /** The list holding the hooks. */
  hooksField: "initializers" | "externalAdmissionHooks";
}

export const LEGACY_KIND_OF: Record<LegacyResource, LegacyKindInfo> = {
  initializerconfigurations: {
    kind: "InitializerConfiguration",
    version: "v1alpha1",
    hooksField: "initializers",
  },
  externaladmissionhookconfigurations: {
    kind: "ExternalAdmissionHookConfiguration",
    version: "v1alpha1",
    hooksField: "externalAdmissionHooks",
  },
};

export function isLegacyResource(s: string): s is LegacyResource {
  return (LEGACY_RESOURCES as readonly string[]).includes(s);
}

/** The group a legacy kind is read and written in. */
export function legacyGroupOrAdmission(legacyGroup: string | undefined): string {
  return legacyGroup ?? ADMISSION_GROUP;
}
