import { sortedStringSet } from "../string-set";
import {
  ALLOWED,
  joinQuote,
  pluralize,
  v1,
  visitContainers,
  type Check,
  type CheckResult,
  type PodMeta,
  type PodSpec,
} from "../types";

/**
 * `procMount_1_0` (shared with the baseline `procMount` check): no container sets
 * securityContext.procMount to anything but "Default", whatever the pod's hostUsers.
 */
function procMount_1_0(_meta: PodMeta, spec: PodSpec): CheckResult {
  const badContainers: string[] = [];
  const forbiddenProcMountTypes: string[] = [];
  visitContainers(spec, (container) => {
    const procMount = container.securityContext?.procMount;
    if (procMount === undefined) return;
    if (procMount !== "Default") {
      badContainers.push(container.name ?? "");
      forbiddenProcMountTypes.push(procMount);
    }
  });
  if (badContainers.length > 0) {
    return {
      allowed: false,
      forbiddenReason: "procMount",
      forbiddenDetail: `${pluralize("container", "containers", badContainers.length)} ${joinQuote(badContainers)} must not set securityContext.procMount to ${joinQuote(sortedStringSet(forbiddenProcMountTypes))}`,
    };
  }
  return ALLOWED;
}

/**
 * `procMount_restricted`: from v1.35, where the baseline `procMount` check exempts pods with
 * hostUsers: false, the restricted profile keeps refusing unmasked procMount for every pod, in
 * place of the baseline check.
 */
export const procMount_restricted: Check = {
  id: "procMount_restricted",
  level: "restricted",
  versions: [{ minimumVersion: v1(35), checkPod: procMount_1_0, overrideCheckIDs: ["procMount"] }],
};
