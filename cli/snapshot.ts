/**
 * Sorting read objects into an AdmissionSnapshot: configurations by kind, Namespace objects as
 * label sets, everything else skipped with a notice (a directory of mixed manifests is normal).
 */
import { emptyLists, type SnapshotLists } from "@/lib/admission/model/snapshot";
import type { Labels } from "@/lib/admission/model/selectors";
import type { JsonObject } from "@/lib/admission/validate/json";
import { isObject, obj } from "@/lib/admission/validate/json";
import type { KindInfo } from "@/lib/admission/validate/kind-info";
import { kindInfoFor } from "@/lib/admission/validate/kind-info";
import type { SourceObject } from "./documents";
import type { V1Pod, V1Service } from "@/lib/k8s/types";
import type { WorkloadLike } from "@/lib/admission/lint/deadlock";
import { describeOrigin, typeOf } from "./documents";
import { parseEngineObject } from "@/lib/admission/engines/sources";

/** Something worth telling the user that does not change the exit code. */
export interface Notice {
  /** `file:line`, or `cluster <context>`. */
  at: string;
  message: string;
}

/** The historical kinds: the releases that stopped serving them. */
const NOT_SERVED: Record<string, string> = {
  "v1beta1/ValidatingWebhookConfiguration": "1.22 and later (served 1.9–1.21; use v1)",
  "v1beta1/MutatingWebhookConfiguration": "1.22 and later (served 1.9–1.21; use v1)",
  "v1alpha1/InitializerConfiguration":
    "1.14 and later (an alpha API of 1.7–1.13, removed with initializers)",
  "v1alpha1/ExternalAdmissionHookConfiguration":
    "1.9 and later (an alpha API of 1.7–1.8, replaced by webhook configurations)",
};

/** For a kind a v1.37 apiserver does not serve, the releases that do not; else undefined. */
export function notServedBy(info: KindInfo): string | undefined {
  return info.served ? undefined : NOT_SERVED[`${info.version}/${info.kind}`];
}

/** Objects beside the configurations that tell where webhook backends run (for L1/L6). */
export interface BackendObjects {
  services: V1Service[];
  pods: V1Pod[];
  /** Deployments, DaemonSets and StatefulSets: their pod templates. */
  workloads: WorkloadLike[];
}

/** What a set of manifests contributes to a prediction or lint run. */
export interface Collected {
  lists: SnapshotLists;
  namespaces: Record<string, Labels>;
  /** The Namespace objects whose `status.phase` is Terminating (e.g. `kubectl get ns -o yaml`). */
  terminatingNamespaces: string[];
  backends: BackendObjects;
  /** Number of admission configuration objects read. */
  configurations: number;
  /**
   * The policy engines' own objects (ConstraintTemplates, Constraints, Kyverno and Kubewarden
   * policies), as read: lib/admission/engines/sources.ts reads them.
   */
  engineObjects: JsonObject[];
  notices: Notice[];
}

/** No backend objects. */
export function emptyBackends(): BackendObjects {
  return { services: [], pods: [], workloads: [] };
}

const WORKLOAD_KINDS = new Set(["Deployment", "DaemonSet", "StatefulSet"]);

/**
 * Keeps a v1 Service or Pod, or an apps/v1 Deployment, DaemonSet or StatefulSet; false for any
 * other object. An object without a namespace lands in `default`, as `kubectl apply` puts it.
 */
function addBackendObject(b: BackendObjects, o: JsonObject): boolean {
  const { apiVersion, kind } = typeOf(o);
  const core = apiVersion === "v1" && (kind === "Service" || kind === "Pod");
  const apps = apiVersion === "apps/v1" && WORKLOAD_KINDS.has(kind);
  if (!core && !apps) return false;
  const meta = isObject(o["metadata"]) ? o["metadata"] : {};
  const namespace =
    typeof meta["namespace"] === "string" && meta["namespace"] !== ""
      ? meta["namespace"]
      : "default";
  const placed = { ...o, metadata: { ...meta, namespace } };
  if (kind === "Service") b.services.push(typed(placed));
  else if (kind === "Pod") b.pods.push(typed(placed));
  else b.workloads.push(typed(placed));
  return true;
}

// Decoded manifests reach the typed snapshot here, once: shapes are the validator's business,
// and compileSnapshot reads every field defensively.
function typed<T>(o: JsonObject): T {
  return o as unknown as T;
}

/** Adds one object to `lists`; returns false when its kind is not an admission configuration. */
export function addConfiguration(lists: SnapshotLists, o: JsonObject): boolean {
  const { apiVersion, kind } = typeOf(o);
  if (!kindInfoFor(apiVersion, kind)) return false;
  switch (kind) {
    case "MutatingWebhookConfiguration":
      lists.mutatingWebhookConfigurations.push(typed(o));
      return true;
    case "ValidatingWebhookConfiguration":
      lists.validatingWebhookConfigurations.push(typed(o));
      return true;
    case "ValidatingAdmissionPolicy":
      lists.validatingAdmissionPolicies.push(typed(o));
      return true;
    case "ValidatingAdmissionPolicyBinding":
      lists.validatingAdmissionPolicyBindings.push(typed(o));
      return true;
    case "MutatingAdmissionPolicy":
      lists.mutatingAdmissionPolicies.push(typed(o));
      return true;
    case "MutatingAdmissionPolicyBinding":
      lists.mutatingAdmissionPolicyBindings.push(typed(o));
      return true;
    case "InitializerConfiguration":
      lists.initializerConfigurations.push(typed(o));
      return true;
    case "ExternalAdmissionHookConfiguration":
      lists.externalAdmissionHookConfigurations.push(typed(o));
      return true;
    default:
      return false;
  }
}

/** The labels of a v1 Namespace object, or undefined when `o` is not one. */
function namespaceLabels(o: JsonObject): { name: string; labels: Labels } | undefined {
  const t = typeOf(o);
  if (t.apiVersion !== "v1" || t.kind !== "Namespace" || t.name === "") return undefined;
  const raw = obj(obj(o, "metadata"), "labels") ?? {};
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (typeof v === "string") labels[k] = v;
  // The apiserver always sets this label (NamespaceDefaultLabelName, 1.21+).
  labels["kubernetes.io/metadata.name"] = t.name;
  return { name: t.name, labels };
}

/**
 * Sorts objects into configurations and namespaces. A later object with the same kind and name
 * replaces an earlier one, as a later `kubectl apply` would.
 */
export function collect(objects: readonly SourceObject[]): Collected {
  const out: Collected = {
    lists: emptyLists(),
    namespaces: {},
    terminatingNamespaces: [],
    backends: emptyBackends(),
    configurations: 0,
    engineObjects: [],
    notices: [],
  };
  const last = new Map<string, { so: SourceObject; o: JsonObject }>();
  objects.forEach((so, i) => {
    const at = describeOrigin(so.origin);
    if (!isObject(so.value)) {
      out.notices.push({ at, message: "skipped: the document is not an object" });
      return;
    }
    const t = typeOf(so.value);
    // Engine policies may be namespaced (a Kyverno Policy, a Kubewarden AdmissionPolicy).
    const engine = parseEngineObject(so.value) !== undefined;
    const ns = obj(so.value, "metadata")?.["namespace"];
    const id =
      t.name === ""
        ? `#${i}`
        : engine
          ? `${t.apiVersion}/${t.kind}/${typeof ns === "string" ? ns : ""}/${t.name}`
          : `${t.kind}/${t.name}`;
    const before = last.get(id);
    if (before)
      out.notices.push({
        at,
        message: `${t.kind} ${t.name} is also defined at ${describeOrigin(before.so.origin)}; this one wins`,
      });
    last.set(id, { so, o: so.value });
  });
  for (const { so, o } of last.values()) {
    const ns = namespaceLabels(o);
    if (ns) {
      out.namespaces[ns.name] = ns.labels;
      if (obj(o, "status")?.["phase"] === "Terminating") out.terminatingNamespaces.push(ns.name);
      continue;
    }
    if (addConfiguration(out.lists, o)) {
      out.configurations++;
      const t = typeOf(o);
      const info = kindInfoFor(t.apiVersion, t.kind);
      const era = info && notServedBy(info);
      if (era)
        out.notices.push({
          at: describeOrigin(so.origin),
          message: `${t.apiVersion} ${t.kind} ${t.name} is not served by Kubernetes ${era}: taken with its own era's semantics, as a cluster that serves it would`,
        });
      continue;
    }
    if (addBackendObject(out.backends, o)) continue;
    if (parseEngineObject(o) !== undefined) {
      out.engineObjects.push(o);
      continue;
    }
    const t = typeOf(o);
    out.notices.push({
      at: describeOrigin(so.origin),
      message: `skipped: ${t.kind || "(no kind)"} ${t.apiVersion || "(no apiVersion)"} is not an admission configuration`,
    });
  }
  return out;
}
