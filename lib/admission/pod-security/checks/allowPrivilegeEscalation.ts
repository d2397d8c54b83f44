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

/**
 * `allowPrivilegeEscalation` (restricted): every container sets
 * securityContext.allowPrivilegeEscalation=false; from v1.25 a pod with spec.os.name windows is
 * exempt (the apiserver refuses the field on windows pods).
 */
function allowPrivilegeEscalation_1_8(_meta: PodMeta, spec: PodSpec): CheckResult {
  const badContainers: string[] = [];
  visitContainers(spec, (container) => {
    const sc = container.securityContext;
    if (
      sc === undefined ||
      sc.allowPrivilegeEscalation === undefined ||
      sc.allowPrivilegeEscalation
    )
      badContainers.push(container.name ?? "");
  });

  if (badContainers.length > 0) {
    return {
      allowed: false,
      forbiddenReason: "allowPrivilegeEscalation != false",
      forbiddenDetail: `${pluralize("container", "containers", badContainers.length)} ${joinQuote(badContainers)} must set securityContext.allowPrivilegeEscalation=false`,
    };
  }
  return ALLOWED;
}

export const allowPrivilegeEscalation: Check = {
  id: "allowPrivilegeEscalation",
  level: "restricted",
  versions: [
    { minimumVersion: v1(8), checkPod: allowPrivilegeEscalation_1_8 },
    { minimumVersion: v1(25), checkPod: exceptWindowsPods(allowPrivilegeEscalation_1_8) },
  ],
};
