/**
 * The cluster state prediction works from: configurations, namespace labels and discovery.
 * Plain data, so it can be loaded from a live cluster, a YAML bundle or a test table.
 */
import type {
  V1MutatingWebhook,
  V1MutatingWebhookConfiguration,
  V1ValidatingWebhookConfiguration,
  V1ValidatingAdmissionPolicy,
  V1ValidatingAdmissionPolicyBinding,
  V1beta1MutatingAdmissionPolicy,
  V1beta1MutatingAdmissionPolicyBinding,
} from "@/lib/k8s/types";
import type { GroupVersionKind } from "@/lib/admission/model/request";
import type { AssumedMinor } from "@/lib/admission/model/kubernetes-minor";
import type { Labels } from "@/lib/admission/model/selectors";
import type { ParamObjects } from "@/lib/admission/model/params";
import type { PodSecurityConfig } from "@/lib/admission/model/admission-configuration";
import {
  manifestOriginKey,
  type ManifestKind,
  type ManifestOrigin,
} from "@/lib/admission/model/manifests";

/** One served resource, as discovery reports it. */
export interface DiscoveryResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /**
   * The verbs discovery lists for it (`create`, `update`, `patch`, `delete`, …): which operations
   * can reach admission on it (see served-operations.ts). Unknown when absent.
   */
  readonly verbs?: readonly string[];
  /** Subresources served for it; `kind` defaults to the parent's kind (e.g. `status`). */
  readonly subresources?: ReadonlyArray<{
    readonly name: string;
    readonly kind?: GroupVersionKind;
    readonly verbs?: readonly string[];
  }>;
  /**
   * Resources with the same key are the same stored resource (the apiserver's
   * EquivalentResourceMapper). Defaults to `<group>/<resource>`; set it to join cross-group
   * aliases such as `extensions` and `apps` deployments.
   */
  readonly equivalenceKey?: string;
  /**
   * Served by the apiserver's CRD handler (a CustomResourceDefinition's resource), which answers
   * every path of its resources itself: a verb its status or scale subresource does not serve is
   * refused in its own words. Unknown (false) when the definitions could not be read.
   */
  readonly custom?: boolean;
}

/** admissionregistration.k8s.io/v1alpha1 InitializerConfiguration (1.7–1.13). */
export interface InitializerConfiguration {
  readonly metadata?: { readonly name?: string };
  readonly initializers?: ReadonlyArray<{
    readonly name: string;
    readonly rules?: ReadonlyArray<{
      readonly apiGroups?: readonly string[];
      readonly apiVersions?: readonly string[];
      readonly resources?: readonly string[];
    }>;
  }>;
}

/** admissionregistration.k8s.io/v1alpha1 ExternalAdmissionHookConfiguration (1.7–1.8). */
export interface ExternalAdmissionHookConfiguration {
  readonly apiVersion?: string;
  readonly metadata?: { readonly name?: string };
  readonly externalAdmissionHooks?: ReadonlyArray<{
    readonly name: string;
    readonly clientConfig?: {
      readonly service?: { readonly namespace?: string; readonly name?: string };
      readonly caBundle?: string;
    };
    readonly rules?: ReadonlyArray<{
      readonly operations?: readonly string[];
      readonly apiGroups?: readonly string[];
      readonly apiVersions?: readonly string[];
      readonly resources?: readonly string[];
    }>;
    readonly failurePolicy?: string;
  }>;
}

/**
 * A v1beta1 Mutating/ValidatingWebhookConfiguration (1.9–1.21): the v1 shape with the fields v1
 * requires (sideEffects, admissionReviewVersions) optional, as v1beta1 defaulted them.
 */
export interface V1beta1WebhookConfiguration {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: { readonly name?: string };
  readonly webhooks?: ReadonlyArray<
    Omit<V1MutatingWebhook, "sideEffects" | "admissionReviewVersions"> & {
      readonly sideEffects?: string;
      readonly admissionReviewVersions?: string[];
    }
  >;
}

/** Everything `compileSnapshot` reads. Absent lists mean "none". */
export interface AdmissionSnapshot {
  readonly mutatingWebhookConfigurations?: readonly V1MutatingWebhookConfiguration[];
  readonly validatingWebhookConfigurations?: readonly V1ValidatingWebhookConfiguration[];
  readonly validatingAdmissionPolicies?: readonly V1ValidatingAdmissionPolicy[];
  readonly validatingAdmissionPolicyBindings?: readonly V1ValidatingAdmissionPolicyBinding[];
  readonly mutatingAdmissionPolicies?: readonly V1beta1MutatingAdmissionPolicy[];
  readonly mutatingAdmissionPolicyBindings?: readonly V1beta1MutatingAdmissionPolicyBinding[];
  readonly initializerConfigurations?: readonly InitializerConfiguration[];
  /**
   * The historical webhook kinds read apart from the lists above
   * (lib/admission/historical/legacy-hooks.ts, not compileSnapshot): v1beta1 webhook
   * configurations served as custom resources in the configured legacy group (a 1.9–1.21
   * cluster's own v1beta1 objects are the lists above), and ExternalAdmissionHookConfigurations
   * (1.7–1.8).
   */
  readonly legacyMutatingWebhookConfigurations?: readonly V1beta1WebhookConfiguration[];
  readonly legacyValidatingWebhookConfigurations?: readonly V1beta1WebhookConfiguration[];
  readonly externalAdmissionHookConfigurations?: readonly ExternalAdmissionHookConfiguration[];
  /** Namespace name → labels. A namespace missing here is treated as not existing. */
  readonly namespaces?: Readonly<Record<string, Labels>>;
  /**
   * The namespaces whose `status.phase` is Terminating (deleted, their content being removed):
   * NamespaceLifecycle refuses every create in them. Absent: none.
   */
  readonly terminatingNamespaces?: readonly string[];
  readonly discovery?: readonly DiscoveryResource[];
  /**
   * The objects of each paramKind the policies name, read from the cluster. Absent: params are
   * unknown (offline), and a binding's evaluations are not counted. A paramKind missing from a
   * present list is unknown too (e.g. not readable).
   */
  readonly params?: readonly ParamObjects[];
  /**
   * The paramKinds (`paramKindKey`) policies name that the cluster does not serve. The apiserver
   * cannot configure such a policy (policy_source.go ensureParamsForPolicyLocked): every request
   * its matchConstraints match fails it, under its failurePolicy. Absent: none known.
   */
  readonly unservedParamKinds?: readonly string[];
  /**
   * `ExcludeAdmissionWebhookVirtualResources` (on in 1.37): webhooks skip the virtual auth
   * resources. Policies always skip them. Default: the minor's default (`kubernetesMinor`).
   */
  readonly excludeVirtualResources?: boolean;
  /**
   * The Kubernetes minor whose behaviour is reproduced (model/kubernetes-minor.ts) and where it
   * came from: the cluster's /version when read live, else chosen. Absent: the newest, assumed.
   */
  readonly kubernetes?: AssumedMinor;
  /**
   * The PodSecurity plugin's defaults and exemptions, from the apiserver's AdmissionConfiguration
   * when it was given (pod-security/configuration.ts). Absent: the verdict assumes the built-in
   * defaults and says so.
   */
  readonly podSecurity?: PodSecurityConfig;
  /**
   * The static objects among the lists above (hooks and policies the apiserver loaded from its
   * manifest directories, model/manifests.ts), keyed by `manifestOriginKey(kind, name)`: their
   * plugin and file. An object of the lists without an entry is an API object. Static objects sit
   * in the same lists as API ones (their reserved names cannot clash); compileSnapshot puts them
   * first within their plugin and lets them see admission configuration writes. Absent: none.
   */
  readonly manifestOrigins?: Readonly<Record<string, ManifestOrigin>>;
}

/** The origin of a configuration object of the snapshot: its manifest, or undefined for an API object. */
export function manifestOriginOf(
  s: Pick<AdmissionSnapshot, "manifestOrigins">,
  kind: ManifestKind,
  name: string,
): ManifestOrigin | undefined {
  const origins = s.manifestOrigins;
  return origins === undefined ? undefined : origins[manifestOriginKey(kind, name)];
}

/** Static objects read from manifest directories, each with its origin. */
export interface ManifestObjects {
  readonly mutatingWebhookConfigurations: readonly V1MutatingWebhookConfiguration[];
  readonly validatingWebhookConfigurations: readonly V1ValidatingWebhookConfiguration[];
  readonly validatingAdmissionPolicies: readonly V1ValidatingAdmissionPolicy[];
  readonly validatingAdmissionPolicyBindings: readonly V1ValidatingAdmissionPolicyBinding[];
  readonly mutatingAdmissionPolicies: readonly V1beta1MutatingAdmissionPolicy[];
  readonly mutatingAdmissionPolicyBindings: readonly V1beta1MutatingAdmissionPolicyBinding[];
  /** `manifestOriginKey(kind, name)` → origin, for every object above. */
  readonly origins: Readonly<Record<string, ManifestOrigin>>;
}

/**
 * The snapshot with static objects added to its lists and their origins recorded. Objects the
 * snapshot already marks static are replaced (a new read of the directories supersedes the last).
 */
export function withManifests(s: AdmissionSnapshot, m: ManifestObjects): AdmissionSnapshot {
  const old = s.manifestOrigins ?? {};
  const keep = <T extends { metadata?: { name?: string } }>(
    kind: ManifestKind,
    list: readonly T[] | undefined,
    added: readonly T[],
  ): T[] => [
    ...(list ?? []).filter(
      (o) => old[manifestOriginKey(kind, o.metadata?.name ?? "")] === undefined,
    ),
    ...added,
  ];
  return {
    ...s,
    mutatingWebhookConfigurations: keep(
      "MutatingWebhookConfiguration",
      s.mutatingWebhookConfigurations,
      m.mutatingWebhookConfigurations,
    ),
    validatingWebhookConfigurations: keep(
      "ValidatingWebhookConfiguration",
      s.validatingWebhookConfigurations,
      m.validatingWebhookConfigurations,
    ),
    validatingAdmissionPolicies: keep(
      "ValidatingAdmissionPolicy",
      s.validatingAdmissionPolicies,
      m.validatingAdmissionPolicies,
    ),
    validatingAdmissionPolicyBindings: keep(
      "ValidatingAdmissionPolicyBinding",
      s.validatingAdmissionPolicyBindings,
      m.validatingAdmissionPolicyBindings,
    ),
    mutatingAdmissionPolicies: keep(
      "MutatingAdmissionPolicy",
      s.mutatingAdmissionPolicies,
      m.mutatingAdmissionPolicies,
    ),
    mutatingAdmissionPolicyBindings: keep(
      "MutatingAdmissionPolicyBinding",
      s.mutatingAdmissionPolicyBindings,
      m.mutatingAdmissionPolicyBindings,
    ),
    manifestOrigins: { ...m.origins },
  };
}

/** The configuration lists of a snapshot, mutable while collecting. */
export type SnapshotLists = {
  -readonly [
    K in Exclude<
      keyof AdmissionSnapshot,
      | "namespaces"
      | "terminatingNamespaces"
      | "discovery"
      | "excludeVirtualResources"
      | "kubernetes"
      | "params"
      | "unservedParamKinds"
      | "podSecurity"
      | "manifestOrigins"
    >
  ]-?: NonNullable<AdmissionSnapshot[K]> extends ReadonlyArray<infer T> ? T[] : never;
};

/** Empty lists. */
export function emptyLists(): SnapshotLists {
  return {
    mutatingWebhookConfigurations: [],
    validatingWebhookConfigurations: [],
    validatingAdmissionPolicies: [],
    validatingAdmissionPolicyBindings: [],
    mutatingAdmissionPolicies: [],
    mutatingAdmissionPolicyBindings: [],
    initializerConfigurations: [],
    legacyMutatingWebhookConfigurations: [],
    legacyValidatingWebhookConfigurations: [],
    externalAdmissionHookConfigurations: [],
  };
}

/** Every configuration object of a snapshot, in one list (webhooks, policies, bindings, initializers). */
export function configurationsOf(s: AdmissionSnapshot): readonly unknown[] {
  return [
    ...(s.validatingWebhookConfigurations ?? []),
    ...(s.mutatingWebhookConfigurations ?? []),
    ...(s.validatingAdmissionPolicies ?? []),
    ...(s.validatingAdmissionPolicyBindings ?? []),
    ...(s.mutatingAdmissionPolicies ?? []),
    ...(s.mutatingAdmissionPolicyBindings ?? []),
    ...(s.initializerConfigurations ?? []),
  ];
}
