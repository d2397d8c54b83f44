/**
 * Which REST resource a request is about (the command line and the predict page). With live
 * state, discovery answers; offline, a table of
 * the built-in resources of Kubernetes 1.37 does, with subresources and the kinds their bodies
 * have (a `scale` body is autoscaling/v1 Scale, an `exec` body is v1 PodExecOptions).
 */
import type { GroupVersionKind } from "@/lib/admission/model/request";
import type { DiscoveryResource } from "@/lib/admission/model/snapshot";
/** The request cannot name a resource as given (the command line reports it as a usage error). */
export class RequestSpecError extends Error {
  override readonly name = "RequestSpecError";
}

type Sub = readonly [name: string, kind?: string];

// [group, version, resource, kind, namespaced, subresources]
type Row = readonly [string, string, string, string, boolean, readonly Sub[]];

const SCALE = "autoscaling/v1/Scale";
const STATUS: Sub = ["status"];

const ROWS: readonly Row[] = [
  [
    "",
    "v1",
    "pods",
    "Pod",
    true,
    [
      STATUS,
      ["binding", "v1/Binding"],
      ["eviction", "policy/v1/Eviction"],
      ["exec", "v1/PodExecOptions"],
      ["attach", "v1/PodAttachOptions"],
      ["portforward", "v1/PodPortForwardOptions"],
      ["proxy", "v1/PodProxyOptions"],
      ["ephemeralcontainers"],
      ["resize"],
    ],
  ],
  ["", "v1", "bindings", "Binding", true, []],
  ["", "v1", "configmaps", "ConfigMap", true, []],
  ["", "v1", "secrets", "Secret", true, []],
  ["", "v1", "services", "Service", true, [STATUS, ["proxy", "v1/ServiceProxyOptions"]]],
  [
    "",
    "v1",
    "serviceaccounts",
    "ServiceAccount",
    true,
    [["token", "authentication.k8s.io/v1/TokenRequest"]],
  ],
  ["", "v1", "endpoints", "Endpoints", true, []],
  ["", "v1", "events", "Event", true, []],
  ["", "v1", "limitranges", "LimitRange", true, []],
  ["", "v1", "resourcequotas", "ResourceQuota", true, [STATUS]],
  ["", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, [STATUS]],
  ["", "v1", "persistentvolumes", "PersistentVolume", false, [STATUS]],
  ["", "v1", "podtemplates", "PodTemplate", true, []],
  ["", "v1", "replicationcontrollers", "ReplicationController", true, [STATUS, ["scale", SCALE]]],
  ["", "v1", "namespaces", "Namespace", false, [STATUS, ["finalize"]]],
  ["", "v1", "nodes", "Node", false, [STATUS, ["proxy", "v1/NodeProxyOptions"]]],
  ["apps", "v1", "deployments", "Deployment", true, [STATUS, ["scale", SCALE]]],
  ["apps", "v1", "statefulsets", "StatefulSet", true, [STATUS, ["scale", SCALE]]],
  ["apps", "v1", "replicasets", "ReplicaSet", true, [STATUS, ["scale", SCALE]]],
  ["apps", "v1", "daemonsets", "DaemonSet", true, [STATUS]],
  ["apps", "v1", "controllerrevisions", "ControllerRevision", true, []],
  ["batch", "v1", "jobs", "Job", true, [STATUS]],
  ["batch", "v1", "cronjobs", "CronJob", true, [STATUS]],
  ["autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true, [STATUS]],
  ["autoscaling", "v1", "horizontalpodautoscalers", "HorizontalPodAutoscaler", true, [STATUS]],
  ["policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true, [STATUS]],
  ["networking.k8s.io", "v1", "ingresses", "Ingress", true, [STATUS]],
  ["networking.k8s.io", "v1", "ingressclasses", "IngressClass", false, []],
  ["networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", true, []],
  ["discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", true, []],
  ["events.k8s.io", "v1", "events", "Event", true, []],
  ["coordination.k8s.io", "v1", "leases", "Lease", true, []],
  ["rbac.authorization.k8s.io", "v1", "roles", "Role", true, []],
  ["rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true, []],
  ["rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false, []],
  ["rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding", false, []],
  ["storage.k8s.io", "v1", "storageclasses", "StorageClass", false, []],
  ["storage.k8s.io", "v1", "csidrivers", "CSIDriver", false, []],
  ["storage.k8s.io", "v1", "csinodes", "CSINode", false, []],
  ["storage.k8s.io", "v1", "volumeattachments", "VolumeAttachment", false, [STATUS]],
  ["scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", false, []],
  ["node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", false, []],
  [
    "certificates.k8s.io",
    "v1",
    "certificatesigningrequests",
    "CertificateSigningRequest",
    false,
    [STATUS, ["approval"]],
  ],
  [
    "apiextensions.k8s.io",
    "v1",
    "customresourcedefinitions",
    "CustomResourceDefinition",
    false,
    [STATUS],
  ],
  ["apiregistration.k8s.io", "v1", "apiservices", "APIService", false, [STATUS]],
  ["authentication.k8s.io", "v1", "tokenreviews", "TokenReview", false, []],
  ["authentication.k8s.io", "v1", "selfsubjectreviews", "SelfSubjectReview", false, []],
  ["authorization.k8s.io", "v1", "subjectaccessreviews", "SubjectAccessReview", false, []],
  ["authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview", false, []],
  ["authorization.k8s.io", "v1", "selfsubjectrulesreviews", "SelfSubjectRulesReview", false, []],
  ["authorization.k8s.io", "v1", "localsubjectaccessreviews", "LocalSubjectAccessReview", true, []],
  ...(
    [
      "ValidatingWebhookConfiguration",
      "MutatingWebhookConfiguration",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionPolicyBinding",
      "MutatingAdmissionPolicy",
      "MutatingAdmissionPolicyBinding",
    ] as const
  ).map((k): Row => [
    "admissionregistration.k8s.io",
    "v1",
    pluralize(k),
    k,
    false,
    k.endsWith("Policy") ? [STATUS] : [],
  ]),
];

function parseGvk(s: string): GroupVersionKind {
  const parts = s.split("/");
  return parts.length === 2
    ? { group: "", version: parts[0] ?? "", kind: parts[1] ?? "" }
    : { group: parts[0] ?? "", version: parts[1] ?? "", kind: parts[2] ?? "" };
}

/** The lower-case plural Kubernetes derives from a kind (`NetworkPolicy` → `networkpolicies`). */
export function pluralize(kind: string): string {
  const k = kind.toLowerCase();
  if (k.endsWith("s") || k.endsWith("x") || k.endsWith("ch") || k.endsWith("sh")) return `${k}es`;
  if (k.endsWith("y") && !/[aeiou]y$/.test(k)) return `${k.slice(0, -1)}ies`;
  return `${k}s`;
}

/** The built-in resources as discovery would report them (core and events.k8s.io events share storage). */
export function builtinDiscovery(): DiscoveryResource[] {
  return ROWS.map(([group, version, resource, kind, namespaced, subs]) => ({
    group,
    version,
    resource,
    kind,
    namespaced,
    subresources: subs.map(([name, k]) => (k ? { name, kind: parseGvk(k) } : { name })),
    ...(resource === "events" ? { equivalenceKey: "events" } : {}),
    ...(resource === "horizontalpodautoscalers" ? { equivalenceKey: "autoscaling/hpa" } : {}),
  }));
}

/** What `--resource` names. Version may be unknown (`deployments.apps`). */
export interface ResourceName {
  group: string;
  version: string | undefined;
  resource: string;
}

/**
 * Parses `--resource`: `RESOURCE`, `RESOURCE.GROUP` (kubectl's form, e.g. `deployments.apps`) or
 * `GROUP/VERSION/RESOURCE` (`core/v1/pods` or `/v1/pods` for the core group).
 */
export function parseResourceName(s: string): ResourceName {
  const parts = s.split("/");
  if (parts.length === 3) {
    const [g = "", version = "", resource = ""] = parts;
    if (version === "" || resource === "")
      throw new RequestSpecError(
        `--resource "${s}": expected GROUP/VERSION/RESOURCE, e.g. apps/v1/deployments`,
      );
    return { group: g === "core" ? "" : g, version, resource };
  }
  if (parts.length !== 1 || s === "")
    throw new RequestSpecError(
      `--resource "${s}": use RESOURCE, RESOURCE.GROUP or GROUP/VERSION/RESOURCE`,
    );
  const dot = s.indexOf(".");
  return dot < 0
    ? { group: "", version: undefined, resource: s }
    : { group: s.slice(dot + 1), version: undefined, resource: s.slice(0, dot) };
}

/** The resolved target of a request. */
export interface ResolvedResource {
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
  /** The kind of the parent resource (for DELETE and for `status`-like subresources). */
  kind: GroupVersionKind;
  /** True when nothing in discovery knew it and the plural was guessed from the kind. */
  guessed: boolean;
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

function resolved(d: DiscoveryResource, guessed = false): ResolvedResource {
  return {
    group: d.group,
    version: d.version,
    resource: d.resource,
    namespaced: d.namespaced,
    kind: { group: d.group, version: d.version, kind: d.kind },
    guessed,
  };
}

/**
 * Finds the resource for a request: from `--resource` when given, else from the object's kind
 * (for a subresource, the resource serving that subresource with that body kind).
 * @throws RequestSpecError when the body's kind cannot name a resource (e.g. a Scale without --resource)
 */
export function resolveResource(
  discovery: readonly DiscoveryResource[],
  body: { apiVersion: string; kind: string; namespaced: boolean },
  subresource: string,
  named: ResourceName | undefined,
): ResolvedResource {
  if (named) {
    const candidates = discovery.filter(
      (d) =>
        d.resource === named.resource &&
        d.group === named.group &&
        (named.version === undefined || d.version === named.version),
    );
    const hit = candidates[0];
    if (hit) return resolved(hit);
    if (named.version === undefined) {
      const { group, version } = splitApiVersion(body.apiVersion);
      // Only the object's version helps when its group is the resource's group.
      if (group !== named.group)
        throw new RequestSpecError(
          `--resource ${named.resource}${named.group ? "." + named.group : ""} is not a known resource: name its version as GROUP/VERSION/RESOURCE`,
        );
      return {
        group: named.group,
        version,
        resource: named.resource,
        namespaced: body.namespaced,
        kind: { group, version, kind: body.kind },
        guessed: true,
      };
    }
    return {
      group: named.group,
      version: named.version,
      resource: named.resource,
      namespaced: body.namespaced,
      kind: { group: named.group, version: named.version, kind: body.kind },
      guessed: true,
    };
  }
  const { group, version } = splitApiVersion(body.apiVersion);
  if (body.kind === "" || body.apiVersion === "")
    throw new RequestSpecError("the object has no apiVersion/kind: add them, or name --resource");
  const sameKind = (d: DiscoveryResource) =>
    d.group === group && d.version === version && d.kind === body.kind;
  if (subresource === "") {
    const hit = discovery.find(sameKind);
    if (hit) return resolved(hit);
  } else {
    // The parent's own kind (status, ephemeralcontainers) or the subresource body's kind.
    const serving = discovery.filter((d) =>
      d.subresources?.some(
        (s) =>
          s.name === subresource &&
          (s.kind
            ? s.kind.group === group && s.kind.version === version && s.kind.kind === body.kind
            : sameKind(d)),
      ),
    );
    if (serving.length === 1 && serving[0]) return resolved(serving[0]);
    if (serving.length > 1)
      throw new RequestSpecError(
        `a ${body.kind} body for /${subresource} fits ${serving.map((d) => `${d.group || "core"}/${d.version}/${d.resource}`).join(", ")}: name one with --resource`,
      );
    const own = discovery.find(sameKind);
    if (own) return resolved(own);
    const isBodyKind = discovery.some((d) =>
      d.subresources?.some(
        (s) =>
          s.kind &&
          s.kind.group === group &&
          s.kind.version === version &&
          s.kind.kind === body.kind,
      ),
    );
    if (isBodyKind)
      throw new RequestSpecError(
        `cannot tell which resource serves /${subresource} with a ${body.kind} body: name it with --resource (e.g. --resource deployments.apps)`,
      );
  }
  return {
    group,
    version,
    resource: pluralize(body.kind),
    namespaced: body.namespaced,
    kind: { group, version, kind: body.kind },
    guessed: true,
  };
}
