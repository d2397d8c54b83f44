import type { Check, CheckResult, PodMeta, PodSpec } from "../types";
import { ALLOWED, joinQuote, pluralize, v1 } from "../types";

/**
 * HostPath volumes must be forbidden.
 * Restricted fields: spec.volumes[*].hostPath. Allowed values: undefined/null.
 */
function hostPathVolumes1_0(_meta: PodMeta, spec: PodSpec): CheckResult {
  const hostVolumes: string[] = [];
  for (const volume of spec.volumes ?? []) {
    const hostPath = volume.hostPath;
    if (typeof hostPath === "object" && hostPath !== null) hostVolumes.push(volume.name ?? "");
  }
  if (hostVolumes.length > 0) {
    return {
      allowed: false,
      forbiddenReason: "hostPath volumes",
      forbiddenDetail: `${pluralize("volume", "volumes", hostVolumes.length)} ${joinQuote(hostVolumes)}`,
    };
  }
  return ALLOWED;
}

export const hostPathVolumes: Check = {
  id: "hostPathVolumes",
  level: "baseline",
  versions: [{ minimumVersion: v1(0), checkPod: hostPathVolumes1_0 }],
};
