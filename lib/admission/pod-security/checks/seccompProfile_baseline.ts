import type { Check, CheckResult, PodMeta, PodSpec } from "../types";
import { ALLOWED, joinQuote, pluralize, v1, visitContainers } from "../types";
import { goSetList } from "../go-sets";
import { goQuote } from "../../validate/go-format";

const annotationKeyPod = "seccomp.security.alpha.kubernetes.io/pod";
const annotationKeyContainerPrefix = "container.seccomp.security.alpha.kubernetes.io/";

const validSeccomp = (type: string) => type === "Localhost" || type === "RuntimeDefault";

const validSeccompAnnotationValue = (v: string) =>
  v === "runtime/default" || v === "docker/default" || v.startsWith("localhost/");

/** The annotation's value when the pod has it (a Go map lookup with `ok`). */
function annotation(meta: PodMeta, key: string): string | undefined {
  const annotations = meta.annotations;
  return annotations !== undefined && Object.hasOwn(annotations, key)
    ? annotations[key]
    : undefined;
}

/**
 * v1.0–v1.18: only runtime default and localhost profiles in the seccomp annotations.
 * Restricted fields: metadata.annotations['seccomp.security.alpha.kubernetes.io/pod'] and
 * ['container.seccomp.security.alpha.kubernetes.io/<container name>'].
 * Allowed values: 'runtime/default', 'docker/default', 'localhost/*', undefined.
 */
function seccompProfileBaseline1_0(meta: PodMeta, spec: PodSpec): CheckResult {
  const forbidden = new Set<string>();
  const podValue = annotation(meta, annotationKeyPod);
  if (podValue !== undefined && !validSeccompAnnotationValue(podValue)) {
    forbidden.add(`${annotationKeyPod}=${goQuote(podValue)}`);
  }
  visitContainers(spec, (c) => {
    const key = annotationKeyContainerPrefix + (c.name ?? "");
    const value = annotation(meta, key);
    if (value !== undefined && !validSeccompAnnotationValue(value)) {
      forbidden.add(`${key}=${goQuote(value)}`);
    }
  });
  if (forbidden.size > 0) {
    return {
      allowed: false,
      forbiddenReason: "seccompProfile",
      forbiddenDetail: `forbidden ${pluralize("annotation", "annotations", forbidden.size)} ${goSetList(forbidden).join(", ")}`,
    };
  }
  return ALLOWED;
}

/**
 * v1.19+: only runtime default and localhost profiles in securityContext.seccompProfile.
 * Restricted fields: seccompProfile.type of the pod's and every container's securityContext.
 * Allowed values: RuntimeDefault, Localhost, undefined.
 */
function seccompProfileBaseline1_19(_meta: PodMeta, spec: PodSpec): CheckResult {
  const badSetters: string[] = [];
  const badValues = new Set<string>();

  const podProfile = spec.securityContext?.seccompProfile;
  if (podProfile !== undefined && podProfile !== null) {
    const type = podProfile.type ?? "";
    if (!validSeccomp(type)) {
      badSetters.push("pod");
      badValues.add(type);
    }
  }

  const explicitlyBadContainers: string[] = [];
  visitContainers(spec, (c) => {
    const profile = c.securityContext?.seccompProfile;
    if (profile === undefined || profile === null) return;
    const type = profile.type ?? "";
    if (!validSeccomp(type)) {
      explicitlyBadContainers.push(c.name ?? "");
      badValues.add(type);
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
  return ALLOWED;
}

export const seccompProfile_baseline: Check = {
  id: "seccompProfile_baseline",
  level: "baseline",
  versions: [
    { minimumVersion: v1(0), checkPod: seccompProfileBaseline1_0 },
    { minimumVersion: v1(19), checkPod: seccompProfileBaseline1_19 },
  ],
};
