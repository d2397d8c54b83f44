import {
  ALLOWED,
  joinQuote,
  pluralize,
  exceptUserNamespacePods,
  v1,
  visitContainers,
  type Check,
  type CheckResult,
  type PodMeta,
  type PodSpec,
} from "../types";

/**
 * `runAsUser`: neither the pod nor a container sets runAsUser=0; from v1.35 a pod with
 * hostUsers: false is exempt.
 */
function runAsUser1_23(_meta: PodMeta, spec: PodSpec): CheckResult {
  // things that explicitly set runAsUser=0
  const badSetters: string[] = [];
  if (spec.securityContext?.runAsUser === 0) badSetters.push("pod");

  // containers that explicitly set runAsUser=0
  const explicitlyBadContainers: string[] = [];
  visitContainers(spec, (container) => {
    if (container.securityContext?.runAsUser === 0)
      explicitlyBadContainers.push(container.name ?? "");
  });

  if (explicitlyBadContainers.length > 0) {
    badSetters.push(
      `${pluralize("container", "containers", explicitlyBadContainers.length)} ${joinQuote(explicitlyBadContainers)}`,
    );
  }
  if (badSetters.length > 0) {
    return {
      allowed: false,
      forbiddenReason: "runAsUser=0",
      forbiddenDetail: `${badSetters.join(" and ")} must not set runAsUser=0`,
    };
  }
  return ALLOWED;
}

export const runAsUser: Check = {
  id: "runAsUser",
  level: "restricted",
  versions: [
    { minimumVersion: v1(23), checkPod: runAsUser1_23 },
    { minimumVersion: v1(35), checkPod: exceptUserNamespacePods(runAsUser1_23) },
  ],
};
