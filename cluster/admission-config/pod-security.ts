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
 * The defaults of the local control plane: the levels the built-in defaults have (privileged, so
 * a pod in an unlabelled namespace is admitted as before and no test sees new warnings or audit
 * annotations), with versions set in the file so the dashboard has configured defaults to read
 * and show: enforce at `latest`, audit and warn pinned to v1.30 (privileged admits every pod at
 * every version, so behaviour is the built-in one).
 */
export const POD_SECURITY_DEFAULTS = {
  enforce: "privileged",
  "enforce-version": "latest",
  audit: "privileged",
  "audit-version": "v1.30",
  warn: "privileged",
  "warn-version": "v1.30",
} as const;

/** The PodSecurity plugin's defaults and exemptions for the local control plane. */
export function podSecurityPlugins(_dir: string): AdmissionPluginEntry[] {
  return [
    {
      name: "PodSecurity",
      configuration: {
        apiVersion: "pod-security.admission.config.k8s.io/v1",
        kind: "PodSecurityConfiguration",
        defaults: POD_SECURITY_DEFAULTS,
        exemptions: {
          usernames: [POD_SECURITY_EXEMPT.username],
          runtimeClasses: [POD_SECURITY_EXEMPT.runtimeClass],
          namespaces: [POD_SECURITY_EXEMPT.namespace],
        },
      },
    },
  ];
}
