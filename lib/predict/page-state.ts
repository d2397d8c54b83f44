/**
 * The predict page's what-if state and its URL form, so a prediction can be shared as a link.
 * Pure; every field is bounded and validated when read back from a URL (links are untrusted).
 */
import type { AdmissionOperation } from "@/lib/k8s/types";
import { parseKubernetesMinor, type KubernetesMinor } from "@/lib/admission/model/kubernetes-minor";

/** Everything the admin can change on the predict page. */
export interface PredictPageState {
  /** The object (CREATE/UPDATE body, the object deleted, or the CONNECT options), YAML or JSON. */
  object: string;
  /** The stored object for UPDATE; "" means the same as `object`. */
  oldObject: string;
  operation: AdmissionOperation;
  /** "" for none. */
  subresource: string;
  /** `RESOURCE[.GROUP]` or `GROUP/VERSION/RESOURCE` when the kind does not name it; "" for none. */
  resource: string;
  /** The request's namespace when the object does not name one; "" for none. */
  namespace: string;
  /**
   * The request's name when the body does not carry it (a CONNECT's options name no pod); "" for
   * the object's metadata.name.
   */
  name: string;
  /** Namespace labels to predict with instead of the live ones (what-if); undefined: live. */
  namespaceLabels: Record<string, string> | undefined;
  /** Acting user; "" for the context's own identity. */
  user: string;
  groups: string[];
  dryRun: boolean;
  /** The Kubernetes minor to predict for; undefined: the cluster's own (its /version). */
  kubernetesVersion: KubernetesMinor | undefined;
}

export const OPERATIONS: readonly AdmissionOperation[] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

/** The YAML a fresh page starts with. */
const DEFAULT_OBJECT = `apiVersion: v1
kind: ConfigMap
metadata:
  name: example
  namespace: default
  labels:
    app: example
data:
  key: value
`;

export const DEFAULT_STATE: PredictPageState = {
  object: DEFAULT_OBJECT,
  oldObject: "",
  operation: "CREATE",
  subresource: "",
  resource: "",
  namespace: "",
  name: "",
  namespaceLabels: undefined,
  user: "",
  groups: [],
  dryRun: false,
  kubernetesVersion: undefined,
};

/** Longest object text a URL may carry (the page itself accepts more, but will not share it). */
export const MAX_URL_OBJECT = 32 * 1024;
const MAX_FIELD = 253;
const MAX_GROUPS = 32;
const MAX_LABELS = 64;

/** `k=v,k2=v2` (the form kubectl uses for labels). */
export function formatLabels(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
}

/** Parses `k=v,k2=v2`; entries without `=` or with an empty key are errors. */
export function parseLabels(text: string): { labels: Record<string, string>; error?: string } {
  const labels: Record<string, string> = {};
  for (const raw of text.split(",")) {
    const pair = raw.trim();
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    if (eq <= 0) return { labels, error: `"${pair.slice(0, 80)}" is not key=value` };
    labels[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  return { labels };
}

function bounded(v: string | null, max = MAX_FIELD): string {
  return v === null ? "" : v.slice(0, max);
}

/** The URL query for a state: only what differs from the defaults, so links stay short. */
export function stateToQuery(s: PredictPageState): string {
  const q = new URLSearchParams();
  if (s.object !== DEFAULT_STATE.object && s.object.length <= MAX_URL_OBJECT)
    q.set("object", s.object);
  if (s.oldObject !== "" && s.oldObject.length <= MAX_URL_OBJECT) q.set("old", s.oldObject);
  if (s.operation !== "CREATE") q.set("op", s.operation);
  if (s.subresource) q.set("sub", s.subresource);
  if (s.resource) q.set("resource", s.resource);
  if (s.namespace) q.set("ns", s.namespace);
  if (s.name) q.set("name", s.name);
  if (s.namespaceLabels) q.set("nsLabels", formatLabels(s.namespaceLabels));
  if (s.user) q.set("user", s.user);
  for (const g of s.groups) q.append("group", g);
  if (s.dryRun) q.set("dryRun", "1");
  if (s.kubernetesVersion) q.set("k8s", s.kubernetesVersion);
  return q.toString();
}

/** The state a URL query describes; anything malformed falls back to its default. */
export function stateFromQuery(query: string | URLSearchParams): PredictPageState {
  const q = typeof query === "string" ? new URLSearchParams(query) : query;
  const op = q.get("op");
  const labels = q.get("nsLabels");
  const parsedLabels = labels === null ? undefined : parseLabels(labels.slice(0, 16 * 1024));
  return {
    object: q.has("object") ? bounded(q.get("object"), MAX_URL_OBJECT) : DEFAULT_STATE.object,
    oldObject: bounded(q.get("old"), MAX_URL_OBJECT),
    operation: OPERATIONS.find((o) => o === op) ?? "CREATE",
    subresource: bounded(q.get("sub")),
    resource: bounded(q.get("resource")),
    namespace: bounded(q.get("ns")),
    name: bounded(q.get("name")),
    namespaceLabels:
      parsedLabels && !parsedLabels.error && Object.keys(parsedLabels.labels).length <= MAX_LABELS
        ? parsedLabels.labels
        : undefined,
    user: bounded(q.get("user")),
    groups: q
      .getAll("group")
      .slice(0, MAX_GROUPS)
      .map((g) => g.slice(0, MAX_FIELD))
      .filter((g) => g !== ""),
    dryRun: q.get("dryRun") === "1",
    kubernetesVersion: parseKubernetesMinor(bounded(q.get("k8s"), 16)),
  };
}
