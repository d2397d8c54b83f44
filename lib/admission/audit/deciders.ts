/**
 * Names of the deciders that are not webhooks or admission policies (no import beyond this file:
 * pages read it without the audit parser).
 */

/** The in-tree PodSecurity plugin, as its decisions (kind "pod-security") name it. */
export const POD_SECURITY = "PodSecurity";
