import { goSetList } from "../go-sets";
import {
  exceptWindowsPods,
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

/** `validSeccomp`: the profile types the restricted profile allows. */
const validSeccomp = (t: string) => t === "Localhost" || t === "RuntimeDefault";

/**
 * `seccompProfile_restricted`: the pod (or every container) sets seccompProfile.type to
 * RuntimeDefault or Localhost, and nothing sets another type; from v1.25 a pod with spec.os.name
 * windows is exempt. Replaces `seccompProfile_baseline`.
 */
function seccompProfileRestricted_1_19(_meta: PodMeta, spec: PodSpec): CheckResult {
  // things that explicitly set seccompProfile.type to a bad value
  const badSetters: string[] = [];
  const badValues: string[] = [];

  let podSeccompSet = false;
  const podProfile = spec.securityContext?.seccompProfile;
  if (podProfile !== undefined) {
    if (!validSeccomp(podProfile.type ?? "")) {
      badSetters.push("pod");
      badValues.push(podProfile.type ?? "");
    } else {
      podSeccompSet = true;
    }
  }

  // containers that explicitly set seccompProfile.type to a bad value
  const explicitlyBadContainers: string[] = [];
  // containers that didn't set seccompProfile and aren't caught by a pod-level seccompProfile
  const implicitlyBadContainers: string[] = [];

  visitContainers(spec, (c) => {
    const profile = c.securityContext?.seccompProfile;
    if (profile !== undefined) {
      if (!validSeccomp(profile.type ?? "")) {
        explicitlyBadContainers.push(c.name ?? "");
        badValues.push(profile.type ?? "");
      }
    } else if (!podSeccompSet) {
      implicitlyBadContainers.push(c.name ?? "");
    }
  });

  if (explicitlyBadContainers.length > 0) {
    badSetters.push(
      `${pluralize("container", "containers", explicitlyBadContainers.length)} ${joinQuote(explicitlyBadContainers)}`,
    );
  }
  if (badSetters.length > 0) {
    return {
      allowed: false,
      forbiddenReason: "seccompProfile",
      forbiddenDetail: `${badSetters.join(" and ")} must not set securityContext.seccompProfile.type to ${joinQuote(goSetList(badValues))}`,
    };
  }

  if (implicitlyBadContainers.length > 0) {
    return {
      allowed: false,
      forbiddenReason: "seccompProfile",
      forbiddenDetail: `pod or ${pluralize("container", "containers", implicitlyBadContainers.length)} ${joinQuote(implicitlyBadContainers)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
    };
  }
  return ALLOWED;
}

export const seccompProfile_restricted: Check = {
  id: "seccompProfile_restricted",
  level: "restricted",
  versions: [
    {
      minimumVersion: v1(19),
      checkPod: seccompProfileRestricted_1_19,
      overrideCheckIDs: ["seccompProfile_baseline"],
    },
    {
      minimumVersion: v1(25),
      checkPod: exceptWindowsPods(seccompProfileRestricted_1_19),
      overrideCheckIDs: ["seccompProfile_baseline"],
    },
  ],
};
