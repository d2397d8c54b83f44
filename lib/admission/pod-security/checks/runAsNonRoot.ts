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
 * `runAsNonRoot`: the pod sets securityContext.runAsNonRoot=true (or every container does), and
 * nothing sets it false; from v1.35 a pod with hostUsers: false is exempt.
 */
function runAsNonRoot1_0(_meta: PodMeta, spec: PodSpec): CheckResult {
  // things that explicitly set runAsNonRoot=false
  const badSetters: string[] = [];

  let podRunAsNonRoot = false;
  const podValue = spec.securityContext?.runAsNonRoot;
  if (podValue !== undefined) {
    if (!podValue) badSetters.push("pod");
    else podRunAsNonRoot = true;
  }

  // containers that explicitly set runAsNonRoot=false
  const explicitlyBadContainers: string[] = [];
  // containers that didn't set runAsNonRoot and aren't caught by a pod-level runAsNonRoot=true
  const implicitlyBadContainers: string[] = [];

  visitContainers(spec, (container) => {
    const value = container.securityContext?.runAsNonRoot;
    if (value !== undefined) {
      if (!value) explicitlyBadContainers.push(container.name ?? "");
    } else if (!podRunAsNonRoot) {
      implicitlyBadContainers.push(container.name ?? "");
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
      forbiddenReason: "runAsNonRoot != true",
      forbiddenDetail: `${badSetters.join(" and ")} must not set securityContext.runAsNonRoot=false`,
    };
  }

  if (implicitlyBadContainers.length > 0) {
    return {
      allowed: false,
      forbiddenReason: "runAsNonRoot != true",
      forbiddenDetail: `pod or ${pluralize("container", "containers", implicitlyBadContainers.length)} ${joinQuote(implicitlyBadContainers)} must set securityContext.runAsNonRoot=true`,
    };
  }
  return ALLOWED;
}

export const runAsNonRoot: Check = {
  id: "runAsNonRoot",
  level: "restricted",
  versions: [
    { minimumVersion: v1(0), checkPod: runAsNonRoot1_0 },
    { minimumVersion: v1(35), checkPod: exceptUserNamespacePods(runAsNonRoot1_0) },
  ],
};
