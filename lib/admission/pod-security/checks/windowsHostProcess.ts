import type { Check, CheckResult, PodMeta, PodSpec } from "../types";
import { ALLOWED, joinQuote, pluralize, v1, visitContainers } from "../types";

/**
 * Pod and containers must not set securityContext.windowsOptions.hostProcess to true.
 * Restricted fields: windowsOptions.hostProcess of the pod's and every container's
 * securityContext. Allowed values: undefined / false.
 */
function windowsHostProcess1_0(_meta: PodMeta, spec: PodSpec): CheckResult {
  const badContainers: string[] = [];
  visitContainers(spec, (c) => {
    if (c.securityContext?.windowsOptions?.hostProcess === true) badContainers.push(c.name ?? "");
  });

  const forbiddenSetters: string[] = [];
  if (spec.securityContext?.windowsOptions?.hostProcess === true) forbiddenSetters.push("pod");
  if (badContainers.length > 0) {
    forbiddenSetters.push(
      `${pluralize("container", "containers", badContainers.length)} ${joinQuote(badContainers)}`,
    );
  }
  if (forbiddenSetters.length > 0) {
    return {
      allowed: false,
      forbiddenReason: "hostProcess",
      forbiddenDetail: `${forbiddenSetters.join(" and ")} must not set securityContext.windowsOptions.hostProcess=true`,
    };
  }
  return ALLOWED;
}

export const windowsHostProcess: Check = {
  id: "windowsHostProcess",
  level: "baseline",
  versions: [{ minimumVersion: v1(0), checkPod: windowsHostProcess1_0 }],
};
