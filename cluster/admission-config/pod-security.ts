import type { AdmissionPluginEntry } from "./index";

/**
 * What the local control plane exempts from Pod Security: names no other test uses, so only the
 * tests that mean to meet an exemption do (the namespace and RuntimeClass are created by them; the
 * user is reached by impersonation).
 */
export const POD_SECURITY_EXEMPT = {
  namespace: "portcullis-psa-exempt",
  username: "portcullis-psa-exempt-user",
  runtimeClass: "portcullis-psa-exempt",
} as const;

/**
 * The defaults of the local control plane: the built-in ones, written out (privileged, latest, in
 * every mode). Any other value changes what other tests see: a level adds refusals, warnings or
 * audit annotations in unlabelled namespaces, and even a version does (a namespace labelled
 * `warn: baseline` without `warn-version` takes the default version: "baseline:v1.30" instead of
 * "baseline:latest" in every warning). What the configuration decides is proved here through the
 * exemptions; other defaults on a control plane of a test's own (StartOptions.podSecurity,
 * lib/admission/pod-security/pod-security-defaults.oracle.int.test.ts).
 */
const POD_SECURITY_DEFAULTS = {
  enforce: "privileged",
  "enforce-version": "latest",
  audit: "privileged",
  "audit-version": "latest",
  warn: "privileged",
  "warn-version": "latest",
} as const;

/** A key of the PodSecurityConfiguration's `defaults`. */
type PodSecurityDefaultKey = keyof typeof POD_SECURITY_DEFAULTS;

/**
 * What a control plane of its own (StartOptions.podSecurity) writes instead of the local one's
 * PodSecurity settings, for the tests that prove non-built-in defaults against the apiserver. A
 * section given is written exactly as given (keys left out are defaulted by the plugin itself,
 * which is worth proving too); a section not given keeps the local control plane's.
 */
export interface PodSecurityOverride {
  readonly defaults?: Readonly<Partial<Record<PodSecurityDefaultKey, string>>>;
  readonly exemptions?: {
    readonly usernames?: readonly string[];
    readonly runtimeClasses?: readonly string[];
    readonly namespaces?: readonly string[];
  };
}

/** The PodSecurity plugin's defaults and exemptions for the local control plane. */
export function podSecurityPlugins(
  _dir: string,
  override: PodSecurityOverride = {},
): AdmissionPluginEntry[] {
  return [
    {
      name: "PodSecurity",
      configuration: {
        apiVersion: "pod-security.admission.config.k8s.io/v1",
        kind: "PodSecurityConfiguration",
        defaults: override.defaults ?? POD_SECURITY_DEFAULTS,
        exemptions: override.exemptions ?? {
          usernames: [POD_SECURITY_EXEMPT.username],
          runtimeClasses: [POD_SECURITY_EXEMPT.runtimeClass],
          namespaces: [POD_SECURITY_EXEMPT.namespace],
        },
      },
    },
  ];
}
