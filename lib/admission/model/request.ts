/**
 * The admission request model: what the apiserver knows about one write when it consults
 * admission (`admission.Attributes`), in a form the browser, the CLI and the oracle can build.
 */
import type { AdmissionOperation } from "@/lib/k8s/types";
import type { Labels } from "@/lib/admission/model/selectors";

/** group/version/kind of the request (`attr.GetKind()`). */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** group/version/resource (`attr.GetResource()`). */
export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** `authentication.k8s.io/v1 UserInfo` as admission sees it. */
export interface RequestUserInfo {
  readonly username: string;
  readonly groups: readonly string[];
  readonly uid?: string;
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** A Kubernetes object as plain JSON. */
export type JsonObject = { readonly [key: string]: unknown };

/** One admission request. `namespace` is the namespace's own name for Namespace requests. */
export interface AdmissionRequest {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  /** `""` when there is no subresource. */
  readonly subresource: string;
  readonly kind: GroupVersionKind;
  readonly operation: AdmissionOperation;
  readonly namespace?: string;
  /** Labels of the containing namespace when the caller knows them (overrides the snapshot). */
  readonly namespaceObject?: { readonly labels?: Labels };
  readonly name?: string;
  readonly object?: JsonObject | null;
  readonly oldObject?: JsonObject | null;
  readonly dryRun: boolean;
  readonly userInfo: RequestUserInfo;
  /** CreateOptions / UpdateOptions / DeleteOptions / connect options. */
  readonly options?: JsonObject | null;
}

/** The request's GVR. */
export function requestResource(r: AdmissionRequest): GroupVersionResource {
  return { group: r.group, version: r.version, resource: r.resource };
}

/** `group/version/resource[/subresource]`, with `core` standing for the empty group. */
export function describeResource(gvr: GroupVersionResource, subresource = ""): string {
  const base = `${gvr.group === "" ? "core" : gvr.group}/${gvr.version}/${gvr.resource}`;
  return subresource === "" ? base : `${base}/${subresource}`;
}

/** The label every Namespace carries with its own name. */
export const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

/**
 * The request as admission sees it once the apiserver has decoded its object: a v1 Namespace is
 * defaulted with the label `kubernetes.io/metadata.name: <its name>` (SetDefaults_Namespace),
 * before mutating admission, whenever the body names it. A generateName create is labelled once
 * named (the strategy's Canonicalize), after mutating admission and before validating: with a
 * name not known beforehand, so it is left unlabelled here, and matching gives its validating
 * phase the label with that unknown value (`generatedNamespaceBase`). Other requests are
 * returned as they are.
 */
export function withDecodeDefaults(r: AdmissionRequest): AdmissionRequest {
  const obj = r.object;
  if (!obj || r.kind.group !== "" || r.kind.version !== "v1" || r.kind.kind !== "Namespace")
    return r;
  if (r.operation !== "CREATE" && r.operation !== "UPDATE") return r;
  const meta = obj["metadata"];
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return r;
  const m = meta as Record<string, unknown>;
  const name = m["name"];
  if (typeof name !== "string" || name === "") return r;
  const labels = m["labels"];
  const own =
    typeof labels === "object" && labels !== null && !Array.isArray(labels)
      ? (labels as Record<string, unknown>)
      : {};
  if (own[NAMESPACE_NAME_LABEL] === name) return r;
  return {
    ...r,
    object: { ...obj, metadata: { ...m, labels: { ...own, [NAMESPACE_NAME_LABEL]: name } } },
  };
}

/** apiserver storage/names: a generated name is the base cut to 58 characters, then 5 of these. */
const MAX_GENERATED_BASE = 58;
const GENERATED_SUFFIX = /^[bcdfghjklmnpqrstvwxz2456789]{5}$/;

/**
 * For a v1 Namespace CREATE whose name the apiserver generates (generateName, no name), the base
 * of that name (generateName cut as SimpleNameGenerator cuts it); undefined for anything else.
 * Such a Namespace is named, and labelled `kubernetes.io/metadata.name` with the name, after
 * mutating admission and before validating (store.go create, then the strategy's Canonicalize).
 */
export function generatedNamespaceBase(r: AdmissionRequest): string | undefined {
  const k = r.kind;
  if (r.operation !== "CREATE" || k.group !== "" || k.version !== "v1" || k.kind !== "Namespace")
    return undefined;
  if (r.resource !== "namespaces" || r.subresource !== "") return undefined;
  const meta = r.object?.["metadata"];
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return undefined;
  const m = meta as Record<string, unknown>;
  const name = m["name"];
  const base = m["generateName"];
  if ((typeof name === "string" && name !== "") || typeof base !== "string" || base === "")
    return undefined;
  return base.slice(0, MAX_GENERATED_BASE);
}

/** Could the apiserver generate `name` from `base` (`generatedNamespaceBase`)? */
export function couldBeGeneratedName(name: string, base: string): boolean {
  return name.startsWith(base) && GENERATED_SUFFIX.test(name.slice(base.length));
}

/** `metadata.labels` of a JSON object, or undefined when it has no metadata (never matches a selector). */
export function objectLabels(obj: JsonObject | null | undefined): Labels | undefined {
  if (!obj) return undefined;
  const meta = obj["metadata"];
  if (typeof meta !== "object" || meta === null) return undefined;
  const labels = (meta as Record<string, unknown>)["labels"];
  if (typeof labels !== "object" || labels === null) return {};
  return labels as Labels;
}

/** True when `meta.Accessor` would succeed on the object (it has a metadata object). */
export function hasObjectMeta(obj: JsonObject | null | undefined): boolean {
  if (!obj) return false;
  const meta = obj["metadata"];
  return typeof meta === "object" && meta !== null;
}

/**
 * Where namespaceSelector labels come from, mirroring `namespace.Matcher.GetNamespaceLabels`:
 * a Namespace CREATE/UPDATE (no subresource) uses the incoming object, everything else the
 * stored namespace named by `attr.GetNamespace()`.
 */
export type NamespaceLabelSource =
  | { readonly kind: "cluster-scoped" }
  | { readonly kind: "object"; readonly labels: Labels | undefined }
  | { readonly kind: "stored"; readonly name: string };

/** Decides which label set a namespaceSelector is tested against (see `MatchNamespaceSelector`). */
export function namespaceLabelSource(r: AdmissionRequest): NamespaceLabelSource {
  const ns = r.namespace ?? "";
  if (ns === "" && r.resource !== "namespaces") return { kind: "cluster-scoped" };
  if (
    r.resource === "namespaces" &&
    r.subresource === "" &&
    (r.operation === "CREATE" || r.operation === "UPDATE")
  ) {
    return { kind: "object", labels: objectLabels(r.object) };
  }
  return { kind: "stored", name: ns };
}

/** Builds a request with the usual defaults; handy in tests, the CLI and the predict page. */
export function makeRequest(
  partial: Omit<Partial<AdmissionRequest>, "kind"> &
    Pick<AdmissionRequest, "resource" | "operation"> & { kind?: Partial<GroupVersionKind> },
): AdmissionRequest {
  const group = partial.group ?? "";
  const version = partial.version ?? "v1";
  return {
    ...partial,
    group,
    version,
    subresource: partial.subresource ?? "",
    kind: {
      group: partial.kind?.group ?? group,
      version: partial.kind?.version ?? version,
      kind: partial.kind?.kind ?? "",
    },
    dryRun: partial.dryRun ?? false,
    userInfo: partial.userInfo ?? {
      username: "admin",
      groups: ["system:masters", "system:authenticated"],
    },
  };
}
