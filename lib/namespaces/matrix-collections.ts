/** Which collections the namespaces pages read, and how they become an AdmissionSnapshot (pure). */
import { servedKinds } from "@/lib/k8s/served-kinds";
import type { ResourceRef } from "@/lib/k8s/resources";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type { Labels } from "@/lib/admission/model/selectors";

export const NAMESPACES: ResourceRef = { group: "", version: "v1", resource: "namespaces" };
export const SERVICES: ResourceRef = { group: "", version: "v1", resource: "services" };
export const ENDPOINT_SLICES: ResourceRef = {
  group: "discovery.k8s.io",
  version: "v1",
  resource: "endpointslices",
};

/** Snapshot fields by the admission resource they are read from. */
const SNAPSHOT_FIELD: Readonly<Record<string, keyof AdmissionSnapshot>> = {
  mutatingwebhookconfigurations: "mutatingWebhookConfigurations",
  validatingwebhookconfigurations: "validatingWebhookConfigurations",
  validatingadmissionpolicies: "validatingAdmissionPolicies",
  validatingadmissionpolicybindings: "validatingAdmissionPolicyBindings",
  mutatingadmissionpolicies: "mutatingAdmissionPolicies",
  mutatingadmissionpolicybindings: "mutatingAdmissionPolicyBindings",
};

/** Namespaces, then every served webhook configuration, policy and binding kind. */
export function matrixCollections(
  apis: Array<{ version: string; resources: Array<{ name: string; kind: string }> }>,
): ResourceRef[] {
  return [
    NAMESPACES,
    ...servedKinds(apis).flatMap((k) =>
      k.readAt && SNAPSHOT_FIELD[k.known.resource] ? [k.readAt] : [],
    ),
  ];
}

const NAME_LABEL = "kubernetes.io/metadata.name";

/**
 * Namespaces packed for the page's HTML: at 10,000 namespaces the label sets repeat (a few
 * hundred distinct ones), so each namespace is a name, a creation time and an index into the
 * distinct label sets (the automatic name label left out and restored on unpacking), and the
 * few being terminated listed apart.
 */
export interface PackedNamespaces {
  readonly resourceVersion: string;
  readonly names: readonly string[];
  /** creationTimestamp, as written by the apiserver (`""` when absent). */
  readonly created: readonly string[];
  readonly labelSets: ReadonlyArray<Readonly<Record<string, string>>>;
  readonly sets: readonly number[];
  /** Indexes into `names` of the namespaces whose phase is Terminating (absent: none). */
  readonly terminating?: readonly number[];
}

type NamespaceLike = {
  metadata?: { name?: unknown; creationTimestamp?: unknown; labels?: unknown };
  status?: { phase?: unknown };
};

const TERMINATING = "Terminating";

/** Packs a namespace list (see PackedNamespaces). */
export function packNamespaces(
  resourceVersion: string,
  items: readonly NamespaceLike[],
): PackedNamespaces {
  const names: string[] = [];
  const created: string[] = [];
  const labelSets: Array<Record<string, string>> = [];
  const sets: number[] = [];
  const terminating: number[] = [];
  const index = new Map<string, number>();
  for (const item of items) {
    const m = item.metadata ?? {};
    if (typeof m.name !== "string") continue;
    const labels: Record<string, string> = {};
    if (m.labels && typeof m.labels === "object")
      for (const [k, v] of Object.entries(m.labels as Record<string, unknown>))
        if (k !== NAME_LABEL && typeof v === "string") labels[k] = v;
    const key = JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
    let set = index.get(key);
    if (set === undefined) {
      set = labelSets.length;
      labelSets.push(labels);
      index.set(key, set);
    }
    if (item.status?.phase === TERMINATING) terminating.push(names.length);
    names.push(m.name);
    created.push(typeof m.creationTimestamp === "string" ? m.creationTimestamp : "");
    sets.push(set);
  }
  return {
    resourceVersion,
    names,
    created,
    labelSets,
    sets,
    ...(terminating.length > 0 ? { terminating } : {}),
  };
}

/** The namespace list again, in the collection shape the query cache holds. */
export function unpackNamespaces(p: PackedNamespaces): {
  resourceVersion: string;
  items: Array<{
    metadata: { name: string; creationTimestamp?: string; labels: Record<string, string> };
    status?: { phase: string };
  }>;
} {
  const terminating = new Set(p.terminating ?? []);
  return {
    resourceVersion: p.resourceVersion,
    items: p.names.map((name, i) => ({
      metadata: {
        name,
        ...(p.created[i] ? { creationTimestamp: p.created[i] } : {}),
        labels: { ...p.labelSets[p.sets[i] ?? 0], [NAME_LABEL]: name },
      },
      ...(terminating.has(i) ? { status: { phase: TERMINATING } } : {}),
    })),
  };
}

type NamespaceObject = {
  metadata?: { name?: string; labels?: Record<string, string>; creationTimestamp?: string };
  status?: { phase?: string };
};

/**
 * The admission snapshot the matrix compiles, from its collections (by resource name), with
 * each namespace's creation time: the same on the server (the first screen) and in the browser.
 * Namespaces being terminated are listed in `terminatingNamespaces` (left out when none are).
 */
export function snapshotOfCollections(
  lists: ReadonlyArray<{ resource: string; items: readonly unknown[] }>,
): { snapshot: AdmissionSnapshot; created: Map<string, number> } {
  const created = new Map<string, number>();
  const s: Record<string, unknown> = {};
  const namespaces: Record<string, Labels> = {};
  const terminating: string[] = [];
  for (const { resource, items } of lists) {
    if (resource === NAMESPACES.resource) {
      for (const ns of items as NamespaceObject[]) {
        const name = ns.metadata?.name;
        if (!name) continue;
        namespaces[name] = ns.metadata?.labels ?? {};
        if (ns.status?.phase === TERMINATING) terminating.push(name);
        const t = Date.parse(ns.metadata?.creationTimestamp ?? "");
        if (Number.isFinite(t)) created.set(name, t);
      }
      continue;
    }
    const field = SNAPSHOT_FIELD[resource];
    if (field) s[field] = items;
  }
  return {
    snapshot: {
      ...(s as AdmissionSnapshot),
      namespaces,
      ...(terminating.length > 0 ? { terminatingNamespaces: terminating } : {}),
    },
    created,
  };
}
