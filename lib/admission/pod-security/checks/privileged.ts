import type { Check, CheckResult, PodMeta, PodSpec } from "../types";
import { ALLOWED, joinQuote, pluralize, v1, visitContainers } from "../types";

/**
 * Privileged pods disable most security mechanisms and must be disallowed.
 * Restricted fields: spec.{initContainers,containers,ephemeralContainers}[*].securityContext.privileged.
 * Allowed values: false, undefined/null.
 */
function privileged1_0(_meta: PodMeta, spec: PodSpec): CheckResult {
  const badContainers: string[] = [];
  visitContainers(spec, (c) => {
    if (c.securityContext?.privileged === true) badContainers.push(c.name ?? "");
  });
  if (badContainers.length > 0) {
    return {
      allowed: false,
      forbiddenReason: "privileged",
      forbiddenDetail: `${pluralize("container", "containers", badContainers.length)} ${joinQuote(badContainers)} must not set securityContext.privileged=true`,
    };
  }
  return ALLOWED;
}

export const privileged: Check = {
  id: "privileged",
  level: "baseline",
  versions: [{ minimumVersion: v1(0), checkPod: privileged1_0 }],
};
