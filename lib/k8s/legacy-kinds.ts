/**
 * The historical admission kinds the dashboard edits, where they are read, and the field that
 * holds their hooks. Pure; the group is admissionregistration.k8s.io on a cluster that still
 * serves them, or the configured legacy group (lib/k8s/legacy-group.ts).
 *
 * The v1beta1 webhook configurations share their plural with the v1 kinds, so the dashboard's
 * routes name them `v1beta1-<plural>`; the apiserver path uses the plural itself.
 */
import { ADMISSION_GROUP } from "./admission-apis";

export const LEGACY_RESOURCES = [
  "initializerconfigurations",
  "externaladmissionhookconfigurations",
  "v1beta1-mutatingwebhookconfigurations",
  "v1beta1-validatingwebhookconfigurations",
] as const;

export type LegacyResource = (typeof LEGACY_RESOURCES)[number];

/** The two v1beta1 webhook configuration kinds (1.9–1.21). */
export const V1BETA1_HOOK_RESOURCES = [
  "v1beta1-mutatingwebhookconfigurations",
  "v1beta1-validatingwebhookconfigurations",
] as const satisfies readonly LegacyResource[];

export type V1beta1HookResource = (typeof V1BETA1_HOOK_RESOURCES)[number];

export interface LegacyKindInfo {
  kind: string;
  version: "v1alpha1" | "v1beta1";
  /** The resource as the apiserver names it. */
  plural: string;
  /** The list holding the hooks. */
  hooksField: "initializers" | "externalAdmissionHooks" | "webhooks";
}

export const LEGACY_KIND_OF: Record<LegacyResource, LegacyKindInfo> = {
  initializerconfigurations: {
    kind: "InitializerConfiguration",
    version: "v1alpha1",
    plural: "initializerconfigurations",
    hooksField: "initializers",
  },
  externaladmissionhookconfigurations: {
    kind: "ExternalAdmissionHookConfiguration",
    version: "v1alpha1",
    plural: "externaladmissionhookconfigurations",
    hooksField: "externalAdmissionHooks",
  },
  "v1beta1-mutatingwebhookconfigurations": {
    kind: "MutatingWebhookConfiguration",
    version: "v1beta1",
    plural: "mutatingwebhookconfigurations",
    hooksField: "webhooks",
  },
  "v1beta1-validatingwebhookconfigurations": {
    kind: "ValidatingWebhookConfiguration",
    version: "v1beta1",
    plural: "validatingwebhookconfigurations",
    hooksField: "webhooks",
  },
};

export function isLegacyResource(s: string): s is LegacyResource {
  return (LEGACY_RESOURCES as readonly string[]).includes(s);
}

/** The group a legacy kind is read and written in. */
export function legacyGroupOrAdmission(legacyGroup: string | undefined): string {
  return legacyGroup ?? ADMISSION_GROUP;
}
