/**
 * Historical admission kinds served from a group other than admissionregistration.k8s.io. A
 * cluster that still runs 1.7–1.13 serves InitializerConfiguration (and 1.7–1.8
 * ExternalAdmissionHookConfiguration) in admissionregistration.k8s.io/v1alpha1; a current one can
 * serve their historical shapes as CustomResourceDefinitions in a group of its own, which the
 * operator names in PORTCULLIS_LEGACY_ADMISSION_GROUP. The dashboard then treats that group as
 * admissionregistration.k8s.io for these kinds only. Pure.
 */

/** The kinds read from the legacy group as if it were admissionregistration.k8s.io. */
export const LEGACY_GROUP_KINDS: ReadonlySet<string> = new Set([
  "InitializerConfiguration",
  "ExternalAdmissionHookConfiguration",
]);

/**
 * Every kind discovery reads from the legacy group: the two above, and the v1beta1 webhook
 * configurations. Those share their kind and plural with the v1 kinds, so they are never mixed
 * into them: the v1beta1 page, order and Predict read them apart (lib/k8s/v1beta1-hooks.ts).
 */
export const LEGACY_GROUP_DISCOVERED_KINDS: ReadonlySet<string> = new Set([
  ...LEGACY_GROUP_KINDS,
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
]);

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;

/**
 * The configured legacy group, or undefined when none is set. A value that is not a DNS
 * subdomain with a dot, or that names admissionregistration.k8s.io itself, is an error: the
 * operator asked for something the dashboard cannot honour.
 */
export function parseLegacyGroup(value: string | undefined): string | undefined {
  if (value === undefined || value === "") return undefined;
  if (value.length > 253 || !DNS_SUBDOMAIN.test(value))
    throw new Error(
      `PORTCULLIS_LEGACY_ADMISSION_GROUP ${JSON.stringify(value.slice(0, 80))} is not an API group name`,
    );
  if (value === "admissionregistration.k8s.io")
    throw new Error(
      "PORTCULLIS_LEGACY_ADMISSION_GROUP must name a group of your own: admissionregistration.k8s.io is read anyway",
    );
  return value;
}

/** The configured group, read from the environment of the server process. */
export function legacyGroupFromEnv(): string | undefined {
  return parseLegacyGroup(process.env["PORTCULLIS_LEGACY_ADMISSION_GROUP"]);
}
