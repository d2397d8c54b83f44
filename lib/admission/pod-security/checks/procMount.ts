import type { Check, CheckResult, PodMeta, PodSpec } from "../types";
import {
  ALLOWED,
  joinQuote,
  pluralize,
  exceptUserNamespacePods,
  v1,
  visitContainers,
} from "../types";
import { goSetList } from "../go-sets";

/**
 * The default /proc masks reduce attack surface, and are required unless the pod is in a user
 * namespace (`hostUsers: false`, from v1.35).
 * Restricted fields: spec.{initContainers,containers,ephemeralContainers}[*].securityContext.procMount.
 * Allowed values: undefined/null, "Default" (or any value if hostUsers is false, from v1.35).
 */
export function procMount1_0(_meta: PodMeta, spec: PodSpec): CheckResult {
  const badContainers: string[] = [];
  const forbiddenProcMountTypes = new Set<string>();
  visitContainers(spec, (c) => {
    const procMount = c.securityContext?.procMount;
    if (procMount === undefined || procMount === null) return;
    if (procMount !== "Default") {
      badContainers.push(c.name ?? "");
      forbiddenProcMountTypes.add(procMount);
    }
  });
  if (badContainers.length > 0) {
    return {
      allowed: false,
      forbiddenReason: "procMount",
      forbiddenDetail: `${pluralize("container", "containers", badContainers.length)} ${joinQuote(badContainers)} must not set securityContext.procMount to ${joinQuote(goSetList(forbiddenProcMountTypes))}`,
    };
  }
  return ALLOWED;
}

export const procMount: Check = {
  id: "procMount",
  level: "baseline",
  versions: [
    { minimumVersion: v1(0), checkPod: procMount1_0 },
    { minimumVersion: v1(35), checkPod: exceptUserNamespacePods(procMount1_0) },
  ],
};
