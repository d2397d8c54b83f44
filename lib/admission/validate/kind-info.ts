import {
  behaviourOf,
  NEWEST_KUBERNETES_MINOR,
  type KubernetesMinor,
} from "@/lib/admission/model/kubernetes-minor";

/** The admission kinds this validator knows, by apiVersion and kind. */
type AdmissionKind =
  | "ValidatingWebhookConfiguration"
  | "MutatingWebhookConfiguration"
  | "ValidatingAdmissionPolicy"
  | "ValidatingAdmissionPolicyBinding"
  | "MutatingAdmissionPolicy"
  | "MutatingAdmissionPolicyBinding"
  | "InitializerConfiguration"
  | "ExternalAdmissionHookConfiguration";

type AdmissionVersion = "v1" | "v1beta1" | "v1alpha1";

/** A known kind at one version, and whether the apiserver (1.35 to 1.37) serves it. */
export interface KindInfo {
  group: "admissionregistration.k8s.io";
  version: AdmissionVersion;
  kind: AdmissionKind;
  /** False for historical shapes (v1beta1 webhooks: 1.9–1.21; InitializerConfiguration: 1.7–1.13). */
  served: boolean;
}

const GROUP = "admissionregistration.k8s.io";

const table: Record<AdmissionVersion, Partial<Record<AdmissionKind, boolean>>> = {
  v1: {
    ValidatingWebhookConfiguration: true,
    MutatingWebhookConfiguration: true,
    ValidatingAdmissionPolicy: true,
    ValidatingAdmissionPolicyBinding: true,
    MutatingAdmissionPolicy: true,
    MutatingAdmissionPolicyBinding: true,
  },
  v1beta1: {
    ValidatingWebhookConfiguration: false,
    MutatingWebhookConfiguration: false,
    MutatingAdmissionPolicy: true,
    MutatingAdmissionPolicyBinding: true,
  },
  v1alpha1: {
    MutatingAdmissionPolicy: true,
    MutatingAdmissionPolicyBinding: true,
    InitializerConfiguration: false,
    ExternalAdmissionHookConfiguration: false,
  },
};

/**
 * Looks up apiVersion + kind as `minor`'s apiserver knows them (default: the newest); undefined
 * when this validator does not know the pair, or that minor's scheme has no such kind at that
 * version (MutatingAdmissionPolicy and its binding at v1 before 1.36).
 */
export function kindInfoFor(
  apiVersion: string,
  kind: string,
  minor: KubernetesMinor = NEWEST_KUBERNETES_MINOR,
): KindInfo | undefined {
  const slash = apiVersion.indexOf("/");
  if (slash < 0 || apiVersion.slice(0, slash) !== GROUP) return undefined;
  const version = apiVersion.slice(slash + 1);
  if (version !== "v1" && version !== "v1beta1" && version !== "v1alpha1") return undefined;
  const served = table[version][kind as AdmissionKind];
  if (served === undefined) return undefined;
  if (
    (kind === "MutatingAdmissionPolicy" || kind === "MutatingAdmissionPolicyBinding") &&
    !behaviourOf(minor).mutatingAdmissionPolicyVersions.includes(version)
  )
    return undefined;
  return { group: GROUP, version, kind: kind as AdmissionKind, served };
}

/** `group/version`. */
export function apiVersionOf(k: KindInfo): string {
  return `${k.group}/${k.version}`;
}
