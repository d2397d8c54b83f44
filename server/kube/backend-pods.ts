// Plain Node (no Next, no "server-only"): the command line may read backends through here too;
// eslint.config.mjs keeps it that way.
/**
 * The labels of the pods behind service-backed webhooks, for one identity: in each target's
 * namespace only, the pods its Service's selector selects (metadata only, the selector as the
 * list's labelSelector), and — where none does — the Deployments, StatefulSets, DaemonSets and
 * ReplicaSets whose pod template it selects (template labels only). What the identity may not
 * list is named per namespace, and the rest is still read.
 */
import { mapLimit } from "@/lib/map-limit";
import { KubeApiError } from "@/lib/k8s/errors";
import { selectsLabels } from "@/lib/admission/model/selectors";
import { parseSelector, type PodLabelTarget } from "@/lib/namespaces/backend-pods";
import type { BackendPodsData, PodMetadata, WorkloadTemplate } from "@/lib/api/webhooks";
import type { KubeClient } from "./client";

/** The workload kinds whose pod templates stand in for pods not running. */
const WORKLOADS: ReadonlyArray<{ resource: string; kind: WorkloadTemplate["kind"] }> = [
  { resource: "deployments", kind: "Deployment" },
  { resource: "statefulsets", kind: "StatefulSet" },
  { resource: "daemonsets", kind: "DaemonSet" },
  { resource: "replicasets", kind: "ReplicaSet" },
];

/** Metadata only where the apiserver can (1.15+), the whole objects where it cannot. */
export const METADATA_ONLY =
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json";

const PAGE = 500;

interface ListPage<T> {
  items?: T[];
  metadata?: { continue?: string };
}

async function listAll<T>(
  client: KubeClient,
  path: string,
  query: Record<string, string>,
  signal: AbortSignal | undefined,
  accept?: string,
): Promise<T[]> {
  const out: T[] = [];
  let token: string | undefined;
  do {
    const page: ListPage<T> = await client.request<ListPage<T>>({
      path,
      query: { ...query, limit: PAGE, continue: token },
      ...(accept ? { accept } : {}),
      signal,
    });
    out.push(...(page.items ?? []));
    token = page.metadata?.continue || undefined;
  } while (token);
  return out;
}

function stringMap(v: unknown): Record<string, string> | undefined {
  if (!v || typeof v !== "object") return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === "string") out[k] = x;
  return out;
}

interface ObjectLike {
  metadata?: { name?: unknown; namespace?: unknown; labels?: unknown; ownerReferences?: unknown };
  spec?: { template?: { metadata?: { labels?: unknown } } };
}

/** The Deployment controlling a ReplicaSet (its controller owner reference), if one does. */
function deploymentOf(o: ObjectLike): string | undefined {
  const refs = o.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  for (const r of refs as Array<Record<string, unknown>>)
    if (
      r?.["controller"] === true &&
      r["kind"] === "Deployment" &&
      typeof r["apiVersion"] === "string" &&
      r["apiVersion"].startsWith("apps/") &&
      typeof r["name"] === "string"
    )
      return r["name"];
  return undefined;
}

/**
 * Reads the pods and workload templates of `targets` as `client`. A 403 leaves that list out
 * (`forbidden`, and a notice); any other failure is thrown as the apiserver's KubeApiError.
 */
export async function readBackendPods(
  client: KubeClient,
  targets: readonly PodLabelTarget[],
  signal?: AbortSignal,
): Promise<BackendPodsData> {
  const forbidden = new Map<string, Set<string>>();
  const unserved = new Set<string>();
  const forbid = (namespace: string, resource: string) => {
    const set = forbidden.get(namespace) ?? new Set<string>();
    set.add(resource);
    forbidden.set(namespace, set);
  };
  /** Runs a list; undefined when the identity may not (403) or the kind is not served (404). */
  const tryList = async <T>(
    namespace: string,
    resource: string,
    fn: () => Promise<T[]>,
  ): Promise<T[] | undefined> => {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof KubeApiError && e.status === 403) {
        forbid(namespace, resource);
        return undefined;
      }
      if (e instanceof KubeApiError && e.status === 404 && resource !== "pods") {
        unserved.add(resource);
        return undefined;
      }
      throw e;
    }
  };

  const pods = new Map<string, PodMetadata>();
  /** Targets no pod was found for (read or not): their workloads are read. */
  const withoutPods: PodLabelTarget[] = [];
  await mapLimit(targets, 4, async ({ namespace, selector }) => {
    const ns = encodeURIComponent(namespace);
    const items = await tryList(namespace, "pods", () =>
      listAll<ObjectLike>(
        client,
        `/api/v1/namespaces/${ns}/pods`,
        { labelSelector: selector },
        signal,
        METADATA_ONLY,
      ),
    );
    let found = 0;
    for (const p of items ?? []) {
      const name = p.metadata?.name;
      if (typeof name !== "string") continue;
      found++;
      const labels = stringMap(p.metadata?.labels);
      pods.set(`${namespace}/${name}`, {
        metadata: { name, namespace, ...(labels ? { labels } : {}) },
      });
    }
    if (found === 0) withoutPods.push({ namespace, selector });
  });

  const selectors = new Map<string, Array<Record<string, string>>>();
  for (const t of withoutPods) {
    const sel = parseSelector(t.selector);
    if (!sel) continue;
    selectors.set(t.namespace, [...(selectors.get(t.namespace) ?? []), sel]);
  }
  const workloads: WorkloadTemplate[] = [];
  /** Deployments listed, by namespace/name: their ReplicaSets' templates are theirs, or older. */
  const deployments = new Set<string>();
  /** ReplicaSets a Deployment controls: its name. */
  const owners = new Map<WorkloadTemplate, string>();
  const reads = [...selectors.keys()]
    .sort()
    .flatMap((namespace) => WORKLOADS.map((w) => ({ namespace, ...w })));
  await mapLimit(reads, 4, async ({ namespace, resource, kind }) => {
    const items = await tryList(namespace, resource, () =>
      listAll<ObjectLike>(
        client,
        `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/${resource}`,
        {},
        signal,
      ),
    );
    const wanted = selectors.get(namespace) ?? [];
    for (const o of items ?? []) {
      const name = o.metadata?.name;
      if (typeof name !== "string") continue;
      if (kind === "Deployment") deployments.add(`${namespace}/${name}`);
      const labels = stringMap(o.spec?.template?.metadata?.labels);
      // Only templates a target's Service selects: no other can stand in for its pods.
      if (!wanted.some((sel) => selectsLabels(sel, labels))) continue;
      workloads.push({
        kind,
        metadata: { name, namespace },
        spec: { template: { metadata: { ...(labels ? { labels } : {}) } } },
      });
      const owner = kind === "ReplicaSet" ? deploymentOf(o) : undefined;
      if (owner) owners.set(workloads[workloads.length - 1] as WorkloadTemplate, owner);
    }
  });
  // A Deployment's ReplicaSets hold its current template (new pods come from it) or an older one
  // (scaled down, its labels no longer what new pods get): the Deployment, when listed, stands for
  // them. An old revision's labels would otherwise judge pods that will never be made again.
  const standing = workloads.filter((w) => {
    const owner = owners.get(w);
    return !(owner && deployments.has(`${w.metadata.namespace}/${owner}`));
  });
  standing.sort((a, b) =>
    `${a.metadata.namespace}/${a.kind}/${a.metadata.name}` <
    `${b.metadata.namespace}/${b.kind}/${b.metadata.name}`
      ? -1
      : 1,
  );

  const notices: string[] = [];
  const byResource = new Map<string, string[]>();
  for (const [namespace, resources] of [...forbidden].sort(([a], [b]) => (a < b ? -1 : 1)))
    for (const r of resources) byResource.set(r, [...(byResource.get(r) ?? []), namespace]);
  for (const { resource } of [{ resource: "pods" }, ...WORKLOADS]) {
    const where = byResource.get(resource);
    if (!where) continue;
    notices.push(
      resource === "pods"
        ? `cannot list pods in ${where.join(", ")} (403 Forbidden): their backends' labels come from workload templates or the Service's selector`
        : `cannot list ${resource} in ${where.join(", ")} (403 Forbidden): their templates are not read`,
    );
  }
  for (const resource of unserved)
    notices.push(`apps/v1 ${resource} is not served: their templates are not read`);
  return {
    pods: [...pods.values()].sort((a, b) =>
      `${a.metadata.namespace}/${a.metadata.name}` < `${b.metadata.namespace}/${b.metadata.name}`
        ? -1
        : 1,
    ),
    workloads: standing,
    forbidden: Object.fromEntries(
      [...forbidden].map(([ns, set]) => [
        ns,
        [{ resource: "pods" }, ...WORKLOADS].map((w) => w.resource).filter((r) => set.has(r)),
      ]),
    ),
    notices,
  };
}
