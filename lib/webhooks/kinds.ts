/** The webhook configuration kinds the editor writes (admissionregistration.k8s.io/v1). Pure. */
export const WEBHOOK_RESOURCES = [
  "mutatingwebhookconfigurations",
  "validatingwebhookconfigurations",
] as const;

export type WebhookResource = (typeof WEBHOOK_RESOURCES)[number];

export const KIND_OF: Record<WebhookResource, string> = {
  mutatingwebhookconfigurations: "MutatingWebhookConfiguration",
  validatingwebhookconfigurations: "ValidatingWebhookConfiguration",
};

/** The resource of a kind name, or undefined for kinds the editor does not write. */
export function resourceOfKind(kind: string): WebhookResource | undefined {
  return WEBHOOK_RESOURCES.find((r) => KIND_OF[r] === kind);
}

export function isWebhookResource(s: string): s is WebhookResource {
  return (WEBHOOK_RESOURCES as readonly string[]).includes(s);
}

export const WEBHOOK_GROUP = "admissionregistration.k8s.io";
export const WEBHOOK_VERSION = "v1";

/** Verbs the UI asks SelfSubjectAccessReview about. */
export const ACCESS_VERBS = ["get", "list", "watch", "create", "update", "delete"] as const;
export type AccessVerb = (typeof ACCESS_VERBS)[number];

/** What the current identity may do, per resource and verb. */
export type AccessMap = Record<WebhookResource, Record<AccessVerb, boolean>>;

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
