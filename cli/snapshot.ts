/**
 * Sorting read objects into an AdmissionSnapshot: configurations by kind, Namespace objects as
 * label sets, everything else skipped with a notice (a directory of mixed manifests is normal).
 */
import { emptyLists, type SnapshotLists } from "@/lib/admission/snapshot";
import type { Labels } from "@/lib/admission/selectors";
import type { JsonObject } from "@/lib/admission/validate/json";
import { isObject, obj } from "@/lib/admission/validate/json";
import { kindInfoFor } from "@/lib/admission/validate/kinds";
import type { SourceObject } from "./documents";
import { describeOrigin, typeOf } from "./documents";

/** Something worth telling the user that does not change the exit code. */
export interface Notice {
  /** `file:line`, or `cluster <context>`. */
  at: string;
  message: string;
}

/** What a set of manifests contributes to a prediction or lint run. */
export interface Collected {
  lists: SnapshotLists;
  namespaces: Record<string, Labels>;
  /** Number of admission configuration objects read. */
  configurations: number;
  notices: Notice[];
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
    default:
      return false;
  }
}

/** The labels of a v1 Namespace object, or undefined when `o` is not one. */
export function namespaceLabels(o: JsonObject): { name: string; labels: Labels } | undefined {
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
  const out: Collected = { lists: emptyLists(), namespaces: {}, configurations: 0, notices: [] };
  const last = new Map<string, { so: SourceObject; o: JsonObject }>();
  objects.forEach((so, i) => {
    const at = describeOrigin(so.origin);
    if (!isObject(so.value)) {
      out.notices.push({ at, message: "skipped: the document is not an object" });
      return;
    }
    const t = typeOf(so.value);
    const id = t.name === "" ? `#${i}` : `${t.kind}/${t.name}`;
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
      continue;
    }
    if (addConfiguration(out.lists, o)) {
      out.configurations++;
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
