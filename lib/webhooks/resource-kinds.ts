/**
 * The admission kinds the editor writes (admissionregistration.k8s.io/v1): the two webhook
 * configuration kinds and the four admission policy kinds. Pure.
 */
import type { LegacyResource } from "@/lib/k8s/legacy-kinds";

const WEBHOOK_RESOURCES = [
  "mutatingwebhookconfigurations",
  "validatingwebhookconfigurations",
] as const;

export type WebhookResource = (typeof WEBHOOK_RESOURCES)[number];

/** Admission policies and their bindings (in-process CEL, no backend). */
const POLICY_RESOURCES = [
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
  "mutatingadmissionpolicies",
  "mutatingadmissionpolicybindings",
] as const;

export type PolicyResource = (typeof POLICY_RESOURCES)[number];

/** Every kind the editor, the write routes and the access map cover. */
export const ADMISSION_RESOURCES = [...WEBHOOK_RESOURCES, ...POLICY_RESOURCES] as const;

export type AdmissionResource = (typeof ADMISSION_RESOURCES)[number];

export const KIND_OF: Record<AdmissionResource, string> = {
  mutatingwebhookconfigurations: "MutatingWebhookConfiguration",
  validatingwebhookconfigurations: "ValidatingWebhookConfiguration",
  validatingadmissionpolicies: "ValidatingAdmissionPolicy",
  validatingadmissionpolicybindings: "ValidatingAdmissionPolicyBinding",
  mutatingadmissionpolicies: "MutatingAdmissionPolicy",
  mutatingadmissionpolicybindings: "MutatingAdmissionPolicyBinding",
};

export function isWebhookResource(s: string): s is WebhookResource {
  return (WEBHOOK_RESOURCES as readonly string[]).includes(s);
}

export function isPolicyResource(s: string): s is PolicyResource {
  return (POLICY_RESOURCES as readonly string[]).includes(s);
}

export function isAdmissionResource(s: string): s is AdmissionResource {
  return (ADMISSION_RESOURCES as readonly string[]).includes(s);
}

/** The dashboard page of one object: webhooks under /webhooks, policies under /policies. */
export function objectPagePath(r: AdmissionResource, name?: string): string {
  const section = isWebhookResource(r) ? "/webhooks" : "/policies";
  return name === undefined ? section : `${section}/${r}/${encodeURIComponent(name)}`;
}

export const WEBHOOK_GROUP = "admissionregistration.k8s.io";
export const WEBHOOK_VERSION = "v1";

/** Verbs the UI asks SelfSubjectAccessReview about. */
export const ACCESS_VERBS = ["get", "list", "watch", "create", "update", "delete"] as const;
export type AccessVerb = (typeof ACCESS_VERBS)[number];

/** What the current identity may do, per resource and verb. */
export type AccessMap = Record<AdmissionResource, Record<AccessVerb, boolean>>;

/**
 * What the current identity may do with the historical kinds (`GET /api/webhooks/access?kinds=legacy`),
 * per dashboard route key (lib/k8s/legacy-kinds.ts) and verb, asked of the group that serves them.
 */
export type LegacyAccessMap = Record<LegacyResource, Record<AccessVerb, boolean>>;

/** Metadata fields the server owns: dropped when an object is used as the base of a new one. */
export function forNewObject<T extends { metadata?: Record<string, unknown> }>(
  o: T,
  name: string,
): T {
  const md = o.metadata ?? {};
  const keep: Record<string, unknown> = { name };
  if (md.labels) keep.labels = md.labels;
  if (md.annotations) {
    const ann = { ...(md.annotations as Record<string, string>) };
    delete ann["kubectl.kubernetes.io/last-applied-configuration"];
    if (Object.keys(ann).length > 0) keep.annotations = ann;
  }
  return { ...o, metadata: keep };
}
