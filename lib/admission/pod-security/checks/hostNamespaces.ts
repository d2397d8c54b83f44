import type { Check, CheckResult, PodMeta, PodSpec } from "../types";
import { ALLOWED, v1 } from "../types";

/**
 * Sharing the host network, PID, and IPC namespaces must be disallowed.
 * Restricted fields: spec.hostNetwork, spec.hostPID, spec.hostIPC. Allowed values: undefined, false.
 */
function hostNamespaces1_0(_meta: PodMeta, spec: PodSpec): CheckResult {
  const hostNamespaces: string[] = [];
  if (spec.hostNetwork === true) hostNamespaces.push("hostNetwork=true");
  if (spec.hostPID === true) hostNamespaces.push("hostPID=true");
  if (spec.hostIPC === true) hostNamespaces.push("hostIPC=true");
  if (hostNamespaces.length > 0) {
    return {
      allowed: false,
      forbiddenReason: "host namespaces",
      forbiddenDetail: hostNamespaces.join(", "),
    };
  }
  return ALLOWED;
}

export const hostNamespaces: Check = {
  id: "hostNamespaces",
  level: "baseline",
  versions: [{ minimumVersion: v1(0), checkPod: hostNamespaces1_0 }],
};
