/** Lint findings grouped by the hook (or configuration) they are about. Pure. */
import { lint } from "@/lib/admission/lint/lint";
import type { LintFinding } from "@/lib/admission/lint/lint-types";
import { lintMinor } from "./lint-minor";
import type { LintStateData } from "@/lib/api/webhooks";
import type {
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
} from "@/lib/k8s/types";

/**
 * Lint of the cluster's webhook configurations: the offline checks, and with `live` (namespaces,
 * discovery, the webhooks' backends) the checks that need live state too; with the engines'
 * policies and the admission policies they own in `live`, the engine checks (L20–L24) join them.
 */
export function lintConfigurations(
  mutating: readonly V1MutatingWebhookConfiguration[],
  validating: readonly V1ValidatingWebhookConfiguration[],
  live?: LintStateData,
): LintFinding[] {
  const snapshot = {
    mutatingWebhookConfigurations: mutating,
    validatingWebhookConfigurations: validating,
  };
  if (!live) return lint({ snapshot }, { offlineOnly: true });
  const { sources, ...owned } = live.engines ?? {};
  const kubernetes = lintMinor(live);
  return lint({
    snapshot: {
      ...snapshot,
      ...owned,
      namespaces: live.namespaces,
      discovery: live.discovery,
      // The cluster's minor: its defaults and CEL (matchConditions) are what the checks reproduce.
      ...(kubernetes.source === "cluster" ? { kubernetes } : {}),
    },
    ...(live.services ? { services: live.services } : {}),
    ...(live.endpointSlices ? { endpointSlices: live.endpointSlices } : {}),
    ...(live.pods ? { pods: live.pods } : {}),
    ...(live.workloads ? { workloads: live.workloads } : {}),
    ...(live.serverMinor !== undefined ? { serverMinor: live.serverMinor } : {}),
    ...(sources ? { engines: sources } : {}),
  });
}
