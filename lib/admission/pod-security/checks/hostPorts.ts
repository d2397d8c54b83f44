import type { Check, CheckResult, PodMeta, PodSpec } from "../types";
import { ALLOWED, joinQuote, pluralize, v1, visitContainers } from "../types";
import { goSetList } from "../go-sets";

/**
 * HostPort ports must be forbidden.
 * Restricted fields: spec.{initContainers,containers,ephemeralContainers}[*].ports[*].hostPort.
 * Allowed values: undefined/0.
 */
function hostPorts1_0(_meta: PodMeta, spec: PodSpec): CheckResult {
  const badContainers: string[] = [];
  const forbiddenHostPorts = new Set<string>();
  visitContainers(spec, (c) => {
    let valid = true;
    for (const p of c.ports ?? []) {
      const hostPort = p.hostPort ?? 0;
      if (hostPort !== 0) {
        valid = false;
        forbiddenHostPorts.add(String(hostPort));
      }
    }
    if (!valid) badContainers.push(c.name ?? "");
  });
  if (badContainers.length > 0) {
    return {
      allowed: false,
      forbiddenReason: "hostPort",
      forbiddenDetail: [
        pluralize("container", "containers", badContainers.length),
        joinQuote(badContainers),
        pluralize("uses", "use", badContainers.length),
        pluralize("hostPort", "hostPorts", forbiddenHostPorts.size),
        goSetList(forbiddenHostPorts).join(", "),
      ].join(" "),
    };
  }
  return ALLOWED;
}

export const hostPorts: Check = {
  id: "hostPorts",
  level: "baseline",
  versions: [{ minimumVersion: v1(0), checkPod: hostPorts1_0 }],
};
