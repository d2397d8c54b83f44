/**
 * The Kubernetes minors whose admission behaviour Portcullis reproduces, and what differs between
 * them. Each difference is read from that minor's own sources (k8s.io/apiserver v0.35.4, v0.36.3,
 * v0.37.2 and k8s.io/kubernetes v1.35.4, v1.36.3, v1.37.2) and proven against its apiserver by the
 * oracles (`npm run test:versions`). Besides MinorBehaviour below, PodSecurity's `latest` is the
 * minor's own set of checks (pod-security/evaluate-pod.ts: 1.37 allows two more sysctls at
 * baseline). Found and needing no model: before 1.37 the audit annotation
 * `validation.policy.admission.k8s.io/validation_failure` keeps one failure per request (1.37
 * lists them all; audit/ reads what the event has), and services/proxy reads Endpoints rather
 * than EndpointSlices. The same in the three minors: the handwritten validation of admission
 * objects (pkg/apis/admissionregistration/validation: identical messages; 1.36 and 1.37 mark a
 * few as covered by declarative validation, which only 1.37 enforces), the webhook matching and
 * dispatch (plugin/webhook), matchConditions, the policy dispatchers' matching, the v1 defaults.
 */

/** The minors, oldest first. */
export const KUBERNETES_MINORS = ["1.35", "1.36", "1.37"] as const;
export type KubernetesMinor = (typeof KUBERNETES_MINORS)[number];

/** The newest minor: what a prediction assumes when nothing says otherwise. */
export const NEWEST_KUBERNETES_MINOR: KubernetesMinor = "1.37";

/** Where the minor a prediction assumed came from. */
export type KubernetesMinorSource = "cluster" | "flag" | "default";

/** The minor a result is for, and why. */
export interface AssumedMinor {
  readonly minor: KubernetesMinor;
  readonly source: KubernetesMinorSource;
  /** Set when the cluster's own minor is not one of KUBERNETES_MINORS: what it reported. */
  readonly reported?: string;
}

const minorNumber = (m: KubernetesMinor): number => Number(m.slice(2));

/** "1.36", "v1.36", "1.36.3", "v1.36.3" → "1.36"; undefined for anything else or an unknown minor. */
export function parseKubernetesMinor(s: string): KubernetesMinor | undefined {
  const m = /^v?1\.(\d+)(?:\.\d+)?$/.exec(s.trim());
  if (!m) return undefined;
  const minor = `1.${m[1]}`;
  return (KUBERNETES_MINORS as readonly string[]).includes(minor)
    ? (minor as KubernetesMinor)
    : undefined;
}

/**
 * The minor from an apiserver's `/version` (`major`, `minor` — which may carry a "+" — and
 * `gitVersion`): an exact one of KUBERNETES_MINORS, else the nearest (the oldest for an older
 * cluster, the newest for a newer one) with `reported` set. Undefined when the answer names no
 * version at all (e.g. a v0.0.0-master build).
 */
export function minorOfVersion(v: {
  major?: string;
  minor?: string;
  gitVersion?: string;
}): AssumedMinor | undefined {
  let major = Number.parseInt(v.major ?? "", 10);
  let minor = Number.parseInt(v.minor ?? "", 10);
  if (!Number.isFinite(major) || !Number.isFinite(minor)) {
    const m = /^v?(\d+)\.(\d+)/.exec(v.gitVersion ?? "");
    if (!m) return undefined;
    major = Number(m[1]);
    minor = Number(m[2]);
  }
  if (major !== 1 || minor === 0) return undefined;
  const exact = parseKubernetesMinor(`1.${minor}`);
  if (exact) return { minor: exact, source: "cluster" };
  const nearest =
    minor < minorNumber(KUBERNETES_MINORS[0]) ? KUBERNETES_MINORS[0] : NEWEST_KUBERNETES_MINOR;
  return { minor: nearest, source: "cluster", reported: v.gitVersion ?? `1.${minor}` };
}

/** The admissionregistration.k8s.io versions of the admission kinds. */
type AdmissionApiVersion = "v1" | "v1beta1" | "v1alpha1";

/** What one minor's apiserver does differently, with its defaults. */
export interface MinorBehaviour {
  readonly minor: KubernetesMinor;
  /**
   * `ExcludeAdmissionWebhookVirtualResources` (k8s.io/apiserver features: beta and on from 1.37,
   * absent before): webhooks are not called for tokenreviews, subjectaccessreviews and the other
   * virtual auth resources. Admission policies skip them in every minor.
   */
  readonly webhooksSkipVirtualResources: boolean;
  /**
   * `ManifestBasedAdmissionControlConfig` (alpha and off in 1.36, beta and on in 1.37, absent
   * in 1.35): hooks and policies loaded from each plugin's staticManifestsDir.
   */
  readonly staticManifests: boolean;
  /**
   * The `MutatingAdmissionPolicy` gate's default (beta and off in 1.35, GA and on from 1.36): without
   * it the MutatingAdmissionPolicy plugin does nothing and its kinds are not served.
   */
  readonly mutatingAdmissionPoliciesByDefault: boolean;
  /**
   * The versions the minor has for MutatingAdmissionPolicy and its binding
   * (pkg/registry/admissionregistration/rest): v1 from 1.36 on; v1beta1 and v1alpha1 (off unless
   * --runtime-config turns them on) in all three.
   */
  readonly mutatingAdmissionPolicyVersions: readonly AdmissionApiVersion[];
  /**
   * How apimachinery's validateOwnerReference (pkg/api/validation/objectmeta.go) names an owner
   * reference's errors. "indexed" (v0.37): each under `metadata.ownerReferences[i]`, an empty
   * apiVersion, kind, name or uid a `Required value: must not be empty`, a malformed apiVersion
   * `must be <group>/<version> or <version>`. "unindexed" (v0.35, v0.36): every reference's
   * errors under `metadata.ownerReferences` itself, the empty fields `Invalid value: "": must not
   * be empty` and a version-less apiVersion `version must not be empty`.
   */
  readonly ownerReferenceErrors: "indexed" | "unindexed";
  /**
   * ValidatingAdmissionPolicyBinding's declarative validation enforced (1.37: the registry's
   * strategy embeds rest.DeclarativeValidation with DeclarativeValidationBeta on, so
   * `spec.policyName` and `spec.validationActions` say `Required value` after the other errors).
   * 1.36 runs it for migration checks only (rest.ValidateDeclarativelyWithMigrationChecks returns
   * the handwritten errors), 1.35 not at all: the handwritten `at least one validation action is
   * required` stands in its place.
   */
  readonly declarativeValidation: boolean;
  /**
   * The reserved `.static.k8s.io` name suffix (pkg/registry/admissionregistration/<kind>/strategy.go):
   * on create refused where ManifestBasedAdmissionControlConfig is on (1.37), only warned where it
   * is off (1.36); on update warned (1.36, 1.37). 1.35 does not know the suffix.
   */
  readonly staticSuffixOnCreate: "refused" | "warned" | "none";
  /**
   * The cel-go release the apiserver links (go.sum): v0.26.0 in 1.35 and 1.36, v0.29.2 in 1.37.
   * Where the two evaluate differently the matchConditions evaluator follows the minor's
   * (cel/cel-go-compat.ts): ext.Strings' indexOf and lastIndexOf of an empty string return the
   * offset as given in v0.26 (even past the end, or negative) and clamp it to the length (an
   * error when negative) in v0.29.
   */
  readonly celGo: "v0.26.0" | "v0.29.2";
}

const BEHAVIOURS: Readonly<Record<KubernetesMinor, MinorBehaviour>> = {
  "1.35": {
    minor: "1.35",
    webhooksSkipVirtualResources: false,
    staticManifests: false,
    mutatingAdmissionPoliciesByDefault: false,
    mutatingAdmissionPolicyVersions: ["v1beta1", "v1alpha1"],
    ownerReferenceErrors: "unindexed",
    declarativeValidation: false,
    staticSuffixOnCreate: "none",
    celGo: "v0.26.0",
  },
  "1.36": {
    minor: "1.36",
    webhooksSkipVirtualResources: false,
    staticManifests: false,
    mutatingAdmissionPoliciesByDefault: true,
    mutatingAdmissionPolicyVersions: ["v1", "v1beta1", "v1alpha1"],
    ownerReferenceErrors: "unindexed",
    declarativeValidation: false,
    staticSuffixOnCreate: "warned",
    celGo: "v0.26.0",
  },
  "1.37": {
    minor: "1.37",
    webhooksSkipVirtualResources: true,
    staticManifests: true,
    mutatingAdmissionPoliciesByDefault: true,
    mutatingAdmissionPolicyVersions: ["v1", "v1beta1", "v1alpha1"],
    ownerReferenceErrors: "indexed",
    declarativeValidation: true,
    staticSuffixOnCreate: "refused",
    celGo: "v0.29.2",
  },
};

/** What `minor` (default: the newest) does differently. */
export function behaviourOf(minor: KubernetesMinor = NEWEST_KUBERNETES_MINOR): MinorBehaviour {
  return BEHAVIOURS[minor];
}

/** The minor a result assumed, in words: "Kubernetes 1.36 (the cluster's version)". */
export function assumedMinorText(a: {
  readonly minor: KubernetesMinor;
  readonly source: KubernetesMinorSource;
  readonly reported?: string | null;
}): string {
  const why =
    a.source === "cluster"
      ? a.reported
        ? `the modelled minor nearest the cluster's ${a.reported}`
        : "the cluster's version"
      : a.source === "flag"
        ? "chosen"
        : "the newest; the cluster's version is not known";
  return `Kubernetes ${a.minor} (${why})`;
}
