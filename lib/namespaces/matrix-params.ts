/**
 * The exemption matrix page's state as URL search parameters (pure): the request the matrix is
 * for, the grouping label and the filters. Unknown or malformed values fall back to defaults.
 */
import { POD_CREATE, type MatrixRequest } from "@/lib/admission/exemptions/exemptions";

/** Requests the matrix can be drawn for: common namespaced kinds, Namespaces, cluster-scoped kinds. */
export const MATRIX_RESOURCES: ReadonlyArray<{
  readonly key: string;
  readonly label: string;
  readonly request: Omit<MatrixRequest, "operation">;
}> = [
  { key: "pods", label: "pods", request: { ...POD_CREATE } },
  ...(
    [
      ["apps", "deployments"],
      ["apps", "daemonsets"],
      ["apps", "statefulsets"],
      ["apps", "replicasets"],
      ["batch", "jobs"],
      ["", "configmaps"],
      ["", "secrets"],
      ["", "services"],
      ["", "serviceaccounts"],
      ["coordination.k8s.io", "leases"],
    ] as const
  ).map(([group, resource]) => ({
    key: group ? `${resource}.${group}` : resource,
    label: group ? `${resource}.${group}` : resource,
    request: { group, version: "v1", resource, scope: "Namespaced" as const },
  })),
  {
    key: "namespaces",
    label: "namespaces (the Namespace object's own labels)",
    request: { group: "", version: "v1", resource: "namespaces", scope: "Namespace" },
  },
  ...(
    [
      ["", "nodes"],
      ["apiextensions.k8s.io", "customresourcedefinitions"],
      ["rbac.authorization.k8s.io", "clusterroles"],
    ] as const
  ).map(([group, resource]) => ({
    key: group ? `${resource}.${group}` : resource,
    label: `${group ? `${resource}.${group}` : resource} (cluster-scoped)`,
    request: { group, version: "v1", resource, scope: "Cluster" as const },
  })),
  // CONNECT reaches only these subresources (kubectl exec, attach, port-forward; the proxies).
  // Listed here rather than read from lib/admission/report/resources.ts, whose table would weigh
  // on the page's first load; a test keeps the two in step.
  ...(
    [
      ["pods", "exec", "Namespaced"],
      ["pods", "attach", "Namespaced"],
      ["pods", "portforward", "Namespaced"],
      ["pods", "proxy", "Namespaced"],
      ["services", "proxy", "Namespaced"],
      ["nodes", "proxy", "Cluster"],
    ] as const
  ).map(([resource, subresource, scope]) => ({
    key: `${resource}/${subresource}`,
    label: `${resource}/${subresource}${scope === "Cluster" ? " (cluster-scoped)" : ""}`,
    request: { group: "", version: "v1", resource, subresource, scope },
  })),
];

/** Whether a matrix resource is one CONNECT reaches (a subresource), and only CONNECT. */
function isConnectResource(key: string): boolean {
  return MATRIX_RESOURCES.find((r) => r.key === key)?.request.subresource !== undefined;
}

const CONNECT_DEFAULT = "pods/exec";

export const OPERATIONS = ["CREATE", "UPDATE", "DELETE", "CONNECT"] as const;

/** What the page shows. */
export interface MatrixParams {
  readonly resource: string;
  readonly operation: (typeof OPERATIONS)[number];
  readonly groupBy: string;
  /** Substring of the hook or configuration name. */
  readonly hook: string;
  /**
   * Exactly one hook's column (`Source/configuration/name`, as a hook's page names it), or the
   * columns of every hook with exactly this name (`name`: a webhook's name may be in several
   * configurations); "" for no such narrowing. A webhook's name may be a substring of others'.
   */
  readonly only: string;
  /** Substring of the namespace name. */
  readonly namespace: string;
  readonly failurePolicy: "" | "Fail" | "Ignore";
  /** Also show hooks whose rules do not match the request. */
  readonly all: boolean;
}

export const DEFAULT_PARAMS: MatrixParams = {
  resource: "pods",
  operation: "CREATE",
  groupBy: "runlevel",
  hook: "",
  only: "",
  namespace: "",
  failurePolicy: "",
  all: false,
};

/** A hook name, or `Source/configuration/name` (names are DNS subdomains: they hold no `/`). */
const ONLY = /^(?:[A-Za-z]{1,40}\/[^/\s]{1,253}\/)?[^/\s]{1,253}$/;

/** What an `only` parameter names: one hook, or every hook of a name. */
export function readOnly(
  only: string,
): { source?: string; configuration?: string; name: string } | undefined {
  if (!only) return undefined;
  const parts = only.split("/");
  if (parts.length === 3)
    return { source: parts[0], configuration: parts[1], name: parts[2] as string };
  return { name: only };
}

const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/**
 * A change of the request: CONNECT reaches only subresources, and a subresource only CONNECT, so
 * the other half follows the half that changed (CONNECT picks pods/exec; leaving CONNECT picks the
 * subresource's resource, or pods).
 */
export function changeRequest(
  p: Pick<MatrixParams, "resource" | "operation">,
  change: Partial<Pick<MatrixParams, "resource" | "operation">>,
): Pick<MatrixParams, "resource" | "operation"> {
  if (change.resource !== undefined) {
    const connect = isConnectResource(change.resource);
    const operation =
      connect !== (p.operation === "CONNECT") ? (connect ? "CONNECT" : "CREATE") : p.operation;
    return { resource: change.resource, operation };
  }
  if (change.operation !== undefined) {
    const connect = change.operation === "CONNECT";
    let resource = p.resource;
    if (connect && !isConnectResource(resource)) resource = CONNECT_DEFAULT;
    if (!connect && isConnectResource(resource)) {
      const main = resource.split("/")[0] ?? "";
      resource = MATRIX_RESOURCES.some((r) => r.key === main) ? main : DEFAULT_PARAMS.resource;
    }
    return { resource, operation: change.operation };
  }
  return { resource: p.resource, operation: p.operation };
}

/** Reads the parameters (hostile input: bounded, validated, defaulted). */
export function readParams(q: { get(name: string): string | null }): MatrixParams {
  const resource = q.get("resource") ?? "";
  const operation = q.get("op") ?? "";
  const groupBy = (q.get("group") ?? "").slice(0, 317);
  const fp = q.get("fp") ?? "";
  const known = MATRIX_RESOURCES.some((r) => r.key === resource) ? resource : undefined;
  const op = (OPERATIONS as readonly string[]).includes(operation)
    ? (operation as MatrixParams["operation"])
    : undefined;
  // A resource and operation that cannot go together: the resource decides, else the operation.
  const request = known
    ? changeRequest(
        { resource: DEFAULT_PARAMS.resource, operation: op ?? "CREATE" },
        { resource: known },
      )
    : changeRequest(DEFAULT_PARAMS, { operation: op ?? DEFAULT_PARAMS.operation });
  return {
    resource: request.resource,
    operation: request.operation,
    // Rows group by label sets without the automatic name label: it cannot head groups.
    groupBy:
      LABEL_KEY.test(groupBy) && groupBy !== "kubernetes.io/metadata.name"
        ? groupBy
        : DEFAULT_PARAMS.groupBy,
    hook: (q.get("hook") ?? "").slice(0, 253),
    only: ONLY.test(q.get("only") ?? "") ? (q.get("only") as string) : "",
    namespace: (q.get("ns") ?? "").slice(0, 63),
    failurePolicy: fp === "Fail" || fp === "Ignore" ? fp : "",
    all: q.get("all") === "1",
  };
}

/** The query string for the parameters, leaving defaults out. */
export function writeParams(p: MatrixParams): string {
  const q = new URLSearchParams();
  if (p.resource !== DEFAULT_PARAMS.resource) q.set("resource", p.resource);
  if (p.operation !== DEFAULT_PARAMS.operation) q.set("op", p.operation);
  if (p.groupBy !== DEFAULT_PARAMS.groupBy) q.set("group", p.groupBy);
  if (p.hook) q.set("hook", p.hook);
  if (p.only) q.set("only", p.only);
  if (p.namespace) q.set("ns", p.namespace);
  if (p.failurePolicy) q.set("fp", p.failurePolicy);
  if (p.all) q.set("all", "1");
  const s = q.toString();
  return s ? `?${s}` : "";
}

/**
 * The matrix opened on one hook's column for the request `p` is for: that column only (not the
 * columns of hooks whose names hold its name), shown even where its rules do not match that
 * request, other filters cleared.
 */
export function hookColumnHref(
  id: { source: string; configuration: string; name: string },
  p: MatrixParams = DEFAULT_PARAMS,
): string {
  return `/namespaces${writeParams({
    ...p,
    hook: "",
    only: `${id.source}/${id.configuration}/${id.name}`,
    namespace: "",
    failurePolicy: "",
    all: true,
  })}`;
}

/** The matrix request for the parameters. */
export function requestOf(p: MatrixParams): MatrixRequest {
  const r = MATRIX_RESOURCES.find((x) => x.key === p.resource) ?? MATRIX_RESOURCES[0];
  return { ...(r?.request ?? POD_CREATE), operation: p.operation };
}
