import type { Check, CheckResult, PodMeta, PodSpec } from "../types";
import { ALLOWED, joinQuote, pluralize, v1, visitContainers } from "../types";
import { goSetList, goSortStrings } from "../go-sets";
import { goQuote } from "../../validate/go-format";

/** `corev1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix`. */
const annotationKeyPrefix = "container.apparmor.security.beta.kubernetes.io/";

/** An annotation value that keeps the default profile or names a local one. */
const allowedAnnotationValue = (profile: string) =>
  profile.length === 0 || profile === "runtime/default" || profile.startsWith("localhost/");

const allowedProfileType = (type: string) => type === "RuntimeDefault" || type === "Localhost";

/**
 * The baseline policy prevents overriding or disabling the default AppArmor profile.
 * Restricted fields: metadata.annotations['container.apparmor.security.beta.kubernetes.io/*']
 * (allowed: 'runtime/default', 'localhost/*', empty, undefined), and the appArmorProfile.type of
 * the pod's and every container's securityContext (allowed: RuntimeDefault, Localhost, undefined).
 */
function appArmorProfile1_0(meta: PodMeta, spec: PodSpec): CheckResult {
  const badSetters: string[] = [];
  const badValues = new Set<string>();

  const podProfile = spec.securityContext?.appArmorProfile;
  if (podProfile !== undefined && podProfile !== null) {
    const type = podProfile.type ?? "";
    if (!allowedProfileType(type)) {
      badSetters.push("pod");
      badValues.add(type);
    }
  }

  const badContainers: string[] = [];
  visitContainers(spec, (c) => {
    const profile = c.securityContext?.appArmorProfile;
    if (profile === undefined || profile === null) return;
    const type = profile.type ?? "";
    if (!allowedProfileType(type)) {
      badContainers.push(c.name ?? "");
      badValues.add(type);
    }
  });
  if (badContainers.length > 0) {
    badSetters.push(
      `${pluralize("container", "containers", badContainers.length)} ${joinQuote(badContainers)}`,
    );
  }

  const forbiddenAnnotations: string[] = [];
  for (const [k, v] of Object.entries(meta.annotations ?? {})) {
    if (k.startsWith(annotationKeyPrefix) && !allowedAnnotationValue(v)) {
      forbiddenAnnotations.push(`${k}=${goQuote(v)}`);
    }
  }

  const badValueList = goSetList(badValues);
  if (forbiddenAnnotations.length > 0) {
    badValueList.push(...goSortStrings(forbiddenAnnotations));
    badSetters.push(pluralize("annotation", "annotations", forbiddenAnnotations.length));
  }

  if (badSetters.length > 0) {
    return {
      allowed: false,
      forbiddenReason: pluralize(
        "forbidden AppArmor profile",
        "forbidden AppArmor profiles",
        badValueList.length,
      ),
      forbiddenDetail: `${badSetters.join(" and ")} must not set AppArmor profile type to ${joinQuote(badValueList)}`,
    };
  }
  return ALLOWED;
}

export const appArmorProfile: Check = {
  id: "appArmorProfile",
  level: "baseline",
  versions: [{ minimumVersion: v1(0), checkPod: appArmorProfile1_0 }],
};
