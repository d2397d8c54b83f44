import type { Check, CheckResult, PodMeta, PodSpec } from "../types";
import { ALLOWED, joinQuote, pluralize, v1, visitContainers } from "../types";
import { goSetList } from "../go-sets";

/** The default set of capabilities a container may add (v1.0 on). */
const capabilitiesAllowed1_0: ReadonlySet<string> = new Set([
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
]);

/**
 * Adding NET_RAW or capabilities beyond the default set must be disallowed.
 * Restricted fields: spec.{initContainers,containers,ephemeralContainers}[*].securityContext.capabilities.add.
 * Allowed values: undefined / empty, values from the default set.
 */
function capabilitiesBaseline1_0(_meta: PodMeta, spec: PodSpec): CheckResult {
  const badContainers: string[] = [];
  const nonDefaultCapabilities = new Set<string>();
  visitContainers(spec, (c) => {
    const capabilities = c.securityContext?.capabilities;
    if (capabilities === undefined || capabilities === null) return;
    let valid = true;
    for (const cap of capabilities.add ?? []) {
      if (!capabilitiesAllowed1_0.has(cap)) {
        valid = false;
        nonDefaultCapabilities.add(cap);
      }
    }
    if (!valid) badContainers.push(c.name ?? "");
  });
  if (badContainers.length > 0) {
    return {
      allowed: false,
      forbiddenReason: "non-default capabilities",
      forbiddenDetail: `${pluralize("container", "containers", badContainers.length)} ${joinQuote(badContainers)} must not include ${joinQuote(goSetList(nonDefaultCapabilities))} in securityContext.capabilities.add`,
    };
  }
  return ALLOWED;
}

export const capabilities_baseline: Check = {
  id: "capabilities_baseline",
  level: "baseline",
  versions: [{ minimumVersion: v1(0), checkPod: capabilitiesBaseline1_0 }],
};
