/**
 * Requests the apiserver never hands to API-defined hooks, before any rule is looked at.
 */
import type { AdmissionRequest } from "@/lib/admission/model/request";
import { goQuote } from "@/lib/admission/validate/go-format";

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
    | "namespace-not-found"
    | "namespace-terminating"
    | "immortal-namespace"
    | "method-not-allowed"
    | "subresource-not-served"
    | "operation-never-sent"
    | "pod-security";
  readonly message: string;
}

/** True for a group/resource on the virtual auth list. */
function isVirtualAuthResource(group: string, resource: string): boolean {
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
 * Why the static webhooks (loaded from a manifest directory) are not called, if they are not:
 * `Dispatch` hands admission configuration writes to them alone, so only the virtual auth
 * resources escape them.
 */
export function staticWebhookExclusion(
  r: AdmissionRequest,
  excludeVirtualResources: boolean,
): Exclusion | undefined {
  const e = webhookExclusion(r, excludeVirtualResources);
  return e?.code === "admission-configuration" ? undefined : e;
}

/** Why static admission policies are not consulted: only the virtual auth resources escape them. */
export function staticPolicyExclusion(r: AdmissionRequest): Exclusion | undefined {
  const e = policyExclusion(r);
  return e?.code === "admission-configuration" ? undefined : e;
}

/** As `staticPolicyExclusion`, plus DELETE, which the mutating policy plugin never handles. */
export function staticMutatingPolicyExclusion(r: AdmissionRequest): Exclusion | undefined {
  const e = mutatingPolicyExclusion(r);
  if (e?.code !== "admission-configuration") return e;
  return r.operation === "DELETE"
    ? {
        code: "operation-not-handled",
        message:
          "mutating admission policies are consulted for CREATE, UPDATE and CONNECT only, never for DELETE",
      }
    : undefined;
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

/**
 * A rejection before every hook: by an in-tree admission plugin that runs first, or by the
 * apiserver's router (`routing`: no route serves the request's method on its resource; see
 * served-operations.ts), before admission at all.
 */
export interface InTreeRejection {
  readonly plugin: "NamespaceLifecycle" | "routing";
  readonly status: number;
  readonly message: string;
}

/** What NamespaceLifecycle finds for the request's namespace. */
export type NamespaceState = "active" | "missing" | "terminating";

/**
 * The namespaces NamespaceLifecycle never lets be deleted: the set its registration gives it
 * (`lifecycle.Register`: default, kube-system, kube-public).
 */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set([
  "default",
  "kube-system",
  "kube-public",
]);

const isNamespaceKind = (r: AdmissionRequest) => r.kind.group === "" && r.kind.kind === "Namespace";

/** `schema.GroupResource.String()`: `resource.group`, or `resource` in the core group. */
function qualifiedResource(r: AdmissionRequest): string {
  return r.group === "" ? r.resource : `${r.resource}.${r.group}`;
}

/**
 * The name `admission.NewForbidden` puts in its message (`errors.go` `extractResourceName`): the
 * request's name (the path's, else the object's `metadata.name` on a CREATE), else the object's
 * generateName (a name is generated after admission), else `Unknown`.
 */
function forbiddenName(r: AdmissionRequest): string {
  if (r.name) return r.name;
  const meta = r.object?.["metadata"];
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return "Unknown";
  const m = meta as Record<string, unknown>;
  if (typeof m["name"] === "string" && m["name"] !== "") return m["name"];
  if (typeof m["generateName"] === "string" && m["generateName"] !== "") return m["generateName"];
  return "Unknown";
}

/** apimachinery `errors.NewForbidden`'s message, with Go's %q quoting of the name. */
function forbidden(r: AdmissionRequest, name: string, reason: string): InTreeRejection {
  return {
    plugin: "NamespaceLifecycle",
    status: 403,
    message: `${qualifiedResource(r)} ${goQuote(name)} is forbidden: ${reason}`,
  };
}

/**
 * `namespace/lifecycle/admission.go` `Admit`: NamespaceLifecycle runs before the policy and
 * webhook plugins. It refuses a DELETE of an immortal Namespace (403), and a CREATE of a
 * namespaced object (a Namespace excepted, and localsubjectaccessreviews) in a namespace that
 * does not exist (the NotFound of its lookup) or is being terminated (403). It handles CREATE,
 * UPDATE and DELETE only, and lets every other UPDATE and DELETE through: a CONNECT, or an update
 * in a missing or terminating namespace, reaches the hooks.
 */
export function namespaceLifecycleRejection(
  r: AdmissionRequest,
  namespace: NamespaceState,
): InTreeRejection | undefined {
  if (r.operation === "DELETE" && isNamespaceKind(r) && IMMORTAL_NAMESPACES.has(r.name ?? ""))
    return forbidden(r, r.name ?? "", "this namespace may not be deleted");
  const ns = r.namespace ?? "";
  if (namespace === "active" || ns === "" || r.operation !== "CREATE") return undefined;
  if (isNamespaceKind(r)) return undefined;
  if (r.group === "authorization.k8s.io" && r.resource === "localsubjectaccessreviews")
    return undefined;
  if (namespace === "missing")
    return {
      plugin: "NamespaceLifecycle",
      status: 404,
      message: `namespaces ${goQuote(ns)} not found`,
    };
  return forbidden(
    r,
    forbiddenName(r),
    `unable to create new content in namespace ${ns} because it is being terminated`,
  );
}

/** Why every hook is skipped when NamespaceLifecycle has refused the request. */
export function namespaceLifecycleExclusion(
  r: AdmissionRequest,
  rejected: InTreeRejection,
  namespace: NamespaceState,
): Exclusion {
  const ns = r.namespace ?? "";
  const refusal = `(${rejected.status} ${rejected.message}) before any policy or webhook`;
  if (r.operation === "DELETE")
    return {
      code: "immortal-namespace",
      message: `namespace ${r.name ?? ""} is one the apiserver never deletes: the NamespaceLifecycle admission plugin refuses the DELETE ${refusal}`,
    };
  if (namespace === "terminating")
    return {
      code: "namespace-terminating",
      message: `namespace ${ns} is being terminated: the NamespaceLifecycle admission plugin refuses the CREATE ${refusal}`,
    };
  return {
    code: "namespace-not-found",
    message: `namespace ${ns} does not exist: the NamespaceLifecycle admission plugin refuses the CREATE ${refusal}`,
  };
}
