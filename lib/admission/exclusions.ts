/**
 * Requests the apiserver never hands to API-defined hooks, before any rule is looked at.
 */
import type { AdmissionRequest } from "@/lib/admission/request";

const ADMISSION_GROUP = "admissionregistration.k8s.io";

/** Kinds exempt from webhooks: `rules.IsExemptAdmissionConfigurationResource` (checked by kind). */
const WEBHOOK_EXEMPT_KINDS: ReadonlySet<string> = new Set([
  "ValidatingWebhookConfiguration",
  "MutatingWebhookConfiguration",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "MutatingAdmissionPolicy",
  "MutatingAdmissionPolicyBinding",
]);

/** Resources exempt from API policies: `policy/generic/plugin.go` `admissionResources` (by resource). */
const POLICY_EXEMPT_RESOURCES: ReadonlySet<string> = new Set([
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
  "mutatingadmissionpolicies",
  "mutatingadmissionpolicybindings",
]);

/** `k8s: pkg/kubeapiserver/admission/exclusion/resources.go` `excluded` (group/resource). */
const VIRTUAL_RESOURCES: ReadonlySet<string> = new Set([
  "authentication.k8s.io/selfsubjectreviews",
  "authentication.k8s.io/tokenreviews",
  "authorization.k8s.io/localsubjectaccessreviews",
  "authorization.k8s.io/selfsubjectaccessreviews",
  "authorization.k8s.io/selfsubjectrulesreviews",
  "authorization.k8s.io/subjectaccessreviews",
]);

/** Why a whole plugin returned before considering any hook. */
export interface Exclusion {
  readonly code:
    | "virtual-resource"
    | "admission-configuration"
    | "operation-not-handled"
    | "namespace-not-found";
  readonly message: string;
}

/** True for a group/resource on the virtual auth list. */
export function isVirtualAuthResource(group: string, resource: string): boolean {
  return VIRTUAL_RESOURCES.has(`${group}/${resource}`);
}

/** The virtual auth resources, as `group/resource`. */
export function virtualAuthResources(): readonly string[] {
  return [...VIRTUAL_RESOURCES];
}

/**
 * Mirrors `generic/webhook.go` `Dispatch`: `isExcludedFromAllHooks` (by GroupResource, only with
 * the gate on) and then `isExcludedFromAPIHooks` (by kind).
 */
export function webhookExclusion(
  r: AdmissionRequest,
  excludeVirtualResources: boolean,
): Exclusion | undefined {
  if (excludeVirtualResources && isVirtualAuthResource(r.group, r.resource)) {
    return {
      code: "virtual-resource",
      message: `${r.resource}.${r.group} is a virtual auth resource; webhooks are never called for it (ExcludeAdmissionWebhookVirtualResources)`,
    };
  }
  if (r.kind.group === ADMISSION_GROUP && WEBHOOK_EXEMPT_KINDS.has(r.kind.kind)) {
    return {
      code: "admission-configuration",
      message: `${r.kind.kind} objects are never sent to API-defined webhooks (IsExemptAdmissionConfigurationResource), so a broken webhook cannot block its own repair`,
    };
  }
  return undefined;
}

/** Mirrors `policy/generic/plugin.go` `Dispatch`: virtual resources, then the four policy resources. */
export function policyExclusion(r: AdmissionRequest): Exclusion | undefined {
  if (isVirtualAuthResource(r.group, r.resource)) {
    return {
      code: "virtual-resource",
      message: `${r.resource}.${r.group} is a virtual auth resource; admission policies never see it`,
    };
  }
  if (r.group === ADMISSION_GROUP && POLICY_EXEMPT_RESOURCES.has(r.resource)) {
    return {
      code: "admission-configuration",
      message: `${r.resource} are never evaluated by API-defined admission policies (isExcludedFromAPIHooks); webhook configurations are not exempt from policies`,
    };
  }
  return undefined;
}

/**
 * Why mutating admission policies are not consulted for this request, if they are not: as for
 * every policy, plus DELETE, which their plugin does not handle (it is registered for CREATE,
 * UPDATE and CONNECT only; policy/mutating/plugin.go).
 */
export function mutatingPolicyExclusion(r: AdmissionRequest): Exclusion | undefined {
  const excluded = policyExclusion(r);
  if (excluded || r.operation !== "DELETE") return excluded;
  return {
    code: "operation-not-handled",
    message:
      "mutating admission policies are consulted for CREATE, UPDATE and CONNECT only, never for DELETE",
  };
}

/** A rejection by an in-tree admission plugin that runs before every hook. */
export interface InTreeRejection {
  readonly plugin: "NamespaceLifecycle";
  readonly status: number;
  readonly message: string;
}

/**
 * `namespace/lifecycle/admission.go` `Admit`: NamespaceLifecycle runs before the policy and
 * webhook plugins and refuses a CREATE of a namespaced object (a Namespace excepted, and
 * localsubjectaccessreviews) in a namespace that does not exist with the NotFound of its lookup.
 * It handles CREATE, UPDATE and DELETE only, and lets UPDATE and DELETE through: a CONNECT or an
 * update in a missing namespace reaches the hooks.
 */
export function namespaceLifecycleRejection(
  r: AdmissionRequest,
  namespaceMissing: boolean,
): InTreeRejection | undefined {
  const ns = r.namespace ?? "";
  if (!namespaceMissing || ns === "" || r.operation !== "CREATE") return undefined;
  if (r.kind.group === "" && r.kind.kind === "Namespace") return undefined;
  if (r.group === "authorization.k8s.io" && r.resource === "localsubjectaccessreviews")
    return undefined;
  return { plugin: "NamespaceLifecycle", status: 404, message: `namespaces "${ns}" not found` };
}
