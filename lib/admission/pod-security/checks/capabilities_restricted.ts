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

const capabilityAll = "ALL";
const capabilityNetBindService = "NET_BIND_SERVICE";

/**
 * `capabilities_restricted`: every container drops ALL and adds nothing but NET_BIND_SERVICE;
 * from v1.25 a pod with spec.os.name windows is exempt. Replaces `capabilities_baseline`.
 */
function capabilitiesRestricted_1_22(_meta: PodMeta, spec: PodSpec): CheckResult {
  const containersMissingDropAll: string[] = [];
  const containersAddingForbidden: string[] = [];
  const forbiddenCapabilities: string[] = [];

  visitContainers(spec, (container) => {
    const name = container.name ?? "";
    const capabilities = container.securityContext?.capabilities;
    if (capabilities === undefined) {
      containersMissingDropAll.push(name);
      return;
    }

    if (!(capabilities.drop ?? []).includes(capabilityAll)) containersMissingDropAll.push(name);

    let addedForbidden = false;
    for (const c of capabilities.add ?? []) {
      if (c !== capabilityNetBindService) {
        addedForbidden = true;
        forbiddenCapabilities.push(c);
      }
    }
    if (addedForbidden) containersAddingForbidden.push(name);
  });

  const forbiddenDetails: string[] = [];
  if (containersMissingDropAll.length > 0) {
    forbiddenDetails.push(
      `${pluralize("container", "containers", containersMissingDropAll.length)} ${joinQuote(containersMissingDropAll)} must set securityContext.capabilities.drop=["ALL"]`,
    );
  }
  if (containersAddingForbidden.length > 0) {
    forbiddenDetails.push(
      `${pluralize("container", "containers", containersAddingForbidden.length)} ${joinQuote(containersAddingForbidden)} must not include ${joinQuote(goSetList(forbiddenCapabilities))} in securityContext.capabilities.add`,
    );
  }
  if (forbiddenDetails.length > 0) {
    return {
      allowed: false,
      forbiddenReason: "unrestricted capabilities",
      forbiddenDetail: forbiddenDetails.join("; "),
    };
  }
  return ALLOWED;
}

export const capabilities_restricted: Check = {
  id: "capabilities_restricted",
  level: "restricted",
  versions: [
    {
      minimumVersion: v1(22),
      checkPod: capabilitiesRestricted_1_22,
      overrideCheckIDs: ["capabilities_baseline"],
    },
    {
      minimumVersion: v1(25),
      checkPod: exceptWindowsPods(capabilitiesRestricted_1_22),
      overrideCheckIDs: ["capabilities_baseline"],
    },
  ],
};
