// Plain Node (no Next, no "server-only"): shared by the dashboard server, the command line and
// the matching oracle; eslint.config.mjs keeps it that way.
/**
 * The one reader of admission state: for one identity (a KubeClient), the configurations,
 * policies, bindings, the param objects their bindings name, namespaces and discovery — the
 * AdmissionSnapshot lib/admission predicts from — and who the identity is. The predict page,
 * `portcullis … --context` and the matching oracle all read the cluster through here.
 */
import { minorOfVersion, type AssumedMinor } from "@/lib/admission/model/kubernetes-minor";
import { mapLimit } from "@/lib/map-limit";
import type { WorkloadLike } from "@/lib/admission/lint/deadlock";
import { backendTargets } from "@/lib/namespaces/backend-pods";
import { METADATA_ONLY, readBackendPods } from "./backend-pods";
import { setMaxListeners } from "node:events";
import {
  emptyLists,
  withManifests,
  type AdmissionSnapshot,
  type DiscoveryResource,
  type SnapshotLists,
} from "@/lib/admission/model/snapshot";
import { paramKindKey, type ParamObjects } from "@/lib/admission/model/params";
import type { RequestUserInfo } from "@/lib/admission/model/request";
import type { Labels } from "@/lib/admission/model/selectors";
import { discoveryResources, type GroupVersionResources } from "@/lib/k8s/discovery";
import { KNOWN_ADMISSION_KINDS, ADMISSION_GROUP } from "@/lib/k8s/admission-apis";
import { servedKinds, type ServedKind } from "@/lib/k8s/served-kinds";
import { LEGACY_GROUP_KINDS, legacyGroupFromEnv } from "@/lib/k8s/legacy-group";
import type { V1APIResource, V1EndpointSlice, V1Pod, V1Service } from "@/lib/k8s/types";
import { KubeApiError } from "@/lib/k8s/errors";
import type { KubeClient } from "./client";
import { listCollection } from "./list-collection";
import { manifestNotices, manifestObjectsOf, type ManifestDirState } from "./admission-manifests";

/** Everything read for one identity. */
export interface AdmissionState {
  /** Configurations (unless skipped), namespaces, discovery and the param objects. */
  snapshot: AdmissionSnapshot;
  /** Who the identity is (SelfSubjectReview); undefined when the apiserver will not say. */
  identity: RequestUserInfo | undefined;
  /** What could not be read and what that limits, in words. */
  notices: string[];
}

const LIST_KEY: Record<string, keyof SnapshotLists> = {
  MutatingWebhookConfiguration: "mutatingWebhookConfigurations",
  ValidatingWebhookConfiguration: "validatingWebhookConfigurations",
  ValidatingAdmissionPolicy: "validatingAdmissionPolicies",
  ValidatingAdmissionPolicyBinding: "validatingAdmissionPolicyBindings",
  MutatingAdmissionPolicy: "mutatingAdmissionPolicies",
  MutatingAdmissionPolicyBinding: "mutatingAdmissionPolicyBindings",
  InitializerConfiguration: "initializerConfigurations",
  ExternalAdmissionHookConfiguration: "externalAdmissionHookConfigurations",
};

/** The v1beta1 webhook kinds of the legacy group, read apart from the cluster's own hooks. */
const LEGACY_V1BETA1_KEY: Record<string, keyof SnapshotLists> = {
  MutatingWebhookConfiguration: "legacyMutatingWebhookConfigurations",
  ValidatingWebhookConfiguration: "legacyValidatingWebhookConfigurations",
};

/**
 * Every served resource of every group version, with subresources, their kinds and storage
 * equivalence (see lib/k8s/discovery). A group version whose discovery fails (an aggregated API
 * that is down) is left out with a notice: its resources are just unknown.
 */
export async function readDiscovery(
  client: KubeClient,
  notices: string[],
  signal?: AbortSignal,
): Promise<DiscoveryResource[]> {
  return (await discover(client, notices, signal)).resources;
}

/** Discovery, and the group versions (`group/version`) whose discovery failed. */
async function discover(
  client: KubeClient,
  notices: string[],
  signal?: AbortSignal,
): Promise<{ resources: DiscoveryResource[]; unread: ReadonlySet<string> }> {
  const unread = new Set<string>();
  const groups = await client.request<{
    groups?: { name: string; versions?: { version: string }[] }[];
  }>({ path: "/apis", signal });
  const gvs: { group: string; version: string }[] = [{ group: "", version: "v1" }];
  for (const g of groups.groups ?? [])
    for (const v of g.versions ?? []) gvs.push({ group: g.name, version: v.version });
  const docsRead = mapLimit(gvs, 6, async ({ group, version }) => {
    const path = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
    try {
      const list = await client.request<{ resources?: V1APIResource[] }>({ path, signal });
      return { group, version, resources: list.resources ?? [] } as GroupVersionResources;
    } catch (e) {
      if (signal?.aborted) throw e;
      notices.push(`discovery of ${path} failed (${messageOf(e)}): its resources are unknown`);
      unread.add(`${group}/${version}`);
      return undefined;
    }
  });
  const [docs, custom] = await Promise.all([docsRead, customResources(client, signal)]);
  const read = docs.filter((d): d is GroupVersionResources => d !== undefined);
  return { resources: discoveryResources(read, custom), unread };
}

/**
 * The resources CustomResourceDefinitions define (`<group>/<plural>`, from the definitions' names,
 * which are `<plural>.<group>`), read as metadata only. Empty when they cannot be read: the
 * resources are then not known to be custom, and only the wording of some refusals is lost.
 */
async function customResources(client: KubeClient, signal?: AbortSignal): Promise<Set<string>> {
  try {
    const list = await client.request<{ items?: { metadata?: { name?: string } }[] }>({
      path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      accept: METADATA_ONLY,
      signal,
    });
    const out = new Set<string>();
    for (const item of list.items ?? []) {
      const name = item.metadata?.name ?? "";
      const dot = name.indexOf(".");
      if (dot > 0) out.add(`${name.slice(dot + 1)}/${name.slice(0, dot)}`);
    }
    return out;
  } catch (e) {
    if (signal?.aborted) throw e;
    return new Set();
  }
}

/**
 * The admission objects of every known kind, each at the newest version discovery says is
 * served (v1, then v1beta1, then v1alpha1), and the legacy group's v1beta1 webhook
 * configurations in lists of their own. Kinds the identity may not list are left out with a
 * notice.
 */
export async function readAdmissionObjects(
  client: KubeClient,
  discovery: readonly DiscoveryResource[],
  notices: string[],
  signal?: AbortSignal,
): Promise<SnapshotLists> {
  // The configured legacy group serves historical kinds (lib/k8s/legacy-group.ts).
  const legacy = legacyGroupFromEnv();
  const ours = (d: DiscoveryResource) =>
    d.group === ADMISSION_GROUP ||
    (legacy !== undefined && d.group === legacy && LEGACY_GROUP_KINDS.has(d.kind));
  const gvs = new Map<string, { group: string; version: string }>();
  for (const d of discovery)
    if (ours(d)) gvs.set(`${d.group}/${d.version}`, { group: d.group, version: d.version });
  const apis = [...gvs.values()].map(({ group, version }) => ({
    group,
    version,
    resources: discovery
      .filter((d) => ours(d) && d.group === group && d.version === version)
      .map((d) => ({ name: d.resource, kind: d.kind })),
  }));
  const out = emptyLists();
  const known = new Set(KNOWN_ADMISSION_KINDS.map((k) => k.kind));
  const reads: Array<{ ref: NonNullable<ServedKind["readAt"]>; key: keyof SnapshotLists }> =
    servedKinds(apis).flatMap((k) =>
      k.readAt && known.has(k.known.kind) && LIST_KEY[k.known.kind] !== undefined
        ? [{ ref: k.readAt, key: LIST_KEY[k.known.kind] as keyof SnapshotLists }]
        : [],
    );
  if (legacy !== undefined)
    for (const d of discovery)
      if (d.group === legacy && d.version === "v1beta1" && LEGACY_V1BETA1_KEY[d.kind])
        reads.push({
          ref: { group: d.group, version: d.version, resource: d.resource },
          key: LEGACY_V1BETA1_KEY[d.kind] as keyof SnapshotLists,
        });
  await Promise.all(
    reads.map(async ({ ref, key }) => {
      try {
        const list = await listCollection(client, ref, signal);
        for (const item of list.items) {
          // Server bookkeeping no prediction reads, and often half the bytes.
          const meta = item.metadata;
          if (meta && typeof meta === "object")
            delete (meta as { managedFields?: unknown }).managedFields;
        }
        // Listed objects reach the typed snapshot here, once: shapes are the apiserver's, and
        // compileSnapshot reads every field defensively.
        (out[key] as unknown[]).push(...list.items);
      } catch (e) {
        if (e instanceof KubeApiError && e.status === 403) {
          notices.push(`cannot list ${ref.resource} (403 Forbidden): predicted without them`);
          return;
        }
        throw e;
      }
    }),
  );
  return out;
}

/** The cluster's namespaces as prediction reads them. */
interface NamespaceState {
  /** Namespace name → labels. */
  labels: Record<string, Labels>;
  /** The namespaces whose `status.phase` is Terminating, by name. */
  terminating: string[];
}

/** Namespace names, labels and which of them are being terminated. */
async function readNamespaceState(
  client: KubeClient,
  signal?: AbortSignal,
): Promise<NamespaceState> {
  const list = await listCollection(
    client,
    { group: "", version: "v1", resource: "namespaces" },
    signal,
  );
  const out: NamespaceState = { labels: {}, terminating: [] };
  for (const ns of list.items) {
    const meta = (ns.metadata ?? {}) as { name?: string; labels?: Record<string, unknown> };
    if (typeof meta.name !== "string") continue;
    const labels: Record<string, string> = {};
    for (const [k, v] of Object.entries(meta.labels ?? {}))
      if (typeof v === "string") labels[k] = v;
    out.labels[meta.name] = labels;
    if ((ns as { status?: { phase?: unknown } }).status?.phase === "Terminating")
      out.terminating.push(meta.name);
  }
  return out;
}

/** Namespace name → labels. */
export async function readNamespaces(
  client: KubeClient,
  signal?: AbortSignal,
): Promise<Record<string, Labels>> {
  return (await readNamespaceState(client, signal)).labels;
}

/**
 * The objects of every paramKind the policies name, found through discovery, and the paramKinds
 * (`paramKindKey`) the cluster does not serve. A kind whose group version's discovery failed
 * (`unread`), or that the identity may not list, stays unknown (a notice says so).
 */
async function readParams(
  client: KubeClient,
  objects: Pick<SnapshotLists, "validatingAdmissionPolicies" | "mutatingAdmissionPolicies">,
  discovery: readonly DiscoveryResource[],
  notices: string[],
  signal?: AbortSignal,
  unread: ReadonlySet<string> = new Set(),
): Promise<{ params: ParamObjects[]; unserved: string[] }> {
  const unserved: string[] = [];
  const kinds = new Map<string, { apiVersion: string; kind: string }>();
  for (const p of [...objects.validatingAdmissionPolicies, ...objects.mutatingAdmissionPolicies]) {
    const pk = (p as { spec?: { paramKind?: { apiVersion?: unknown; kind?: unknown } } }).spec
      ?.paramKind;
    if (typeof pk?.apiVersion === "string" && typeof pk.kind === "string")
      kinds.set(`${pk.apiVersion}/${pk.kind}`, { apiVersion: pk.apiVersion, kind: pk.kind });
  }
  const out = await Promise.all(
    [...kinds.values()].map(async ({ apiVersion, kind }): Promise<ParamObjects | undefined> => {
      const slash = apiVersion.indexOf("/");
      const group = slash < 0 ? "" : apiVersion.slice(0, slash);
      const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
      const d = discovery.find(
        (r) => r.group === group && r.version === version && r.kind === kind,
      );
      if (!d) {
        if (unread.has(`${group}/${version}`)) {
          notices.push(
            `paramKind ${apiVersion} ${kind} is unknown (its discovery failed): its bindings' params are unknown`,
          );
          return undefined;
        }
        unserved.push(paramKindKey(apiVersion, kind));
        notices.push(
          `paramKind ${apiVersion} ${kind} is not served: the apiserver rejects every request its policies match (failed to configure policy), unless their failurePolicy is Ignore`,
        );
        return undefined;
      }
      try {
        const list = await listCollection(client, { group, version, resource: d.resource }, signal);
        return {
          apiVersion,
          kind,
          namespaced: d.namespaced,
          objects: list.items.map((o) => {
            const m = (o.metadata ?? {}) as {
              name?: unknown;
              namespace?: unknown;
              labels?: unknown;
            };
            const labels: Record<string, string> = {};
            if (m.labels && typeof m.labels === "object")
              for (const [k, v] of Object.entries(m.labels))
                if (typeof v === "string") labels[k] = v;
            return {
              name: typeof m.name === "string" ? m.name : "",
              ...(typeof m.namespace === "string" ? { namespace: m.namespace } : {}),
              labels,
            };
          }),
        };
      } catch (e) {
        if (signal?.aborted) throw e;
        notices.push(`cannot list ${d.resource} (${messageOf(e)}): params of ${kind} are unknown`);
        return undefined;
      }
    }),
  );
  return { params: out.filter((p): p is ParamObjects => p !== undefined), unserved };
}

/** A SelfSubjectReview's answer: who the apiserver takes the client for. */
export interface SelfSubjectReview {
  status?: { userInfo?: { username?: string; groups?: string[]; uid?: string } };
}

/** Asks the apiserver who `client` is (a SelfSubjectReview); its refusal is thrown as it came. */
export function selfSubjectReview(
  client: KubeClient,
  signal?: AbortSignal,
): Promise<SelfSubjectReview> {
  return client.request<SelfSubjectReview>({
    method: "POST",
    path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
    signal,
  });
}

/** Who the client is, as the apiserver sees it (SelfSubjectReview); undefined if it will not say. */
/** The cluster's minor from its /version; undefined when it cannot be read or names none. */
async function clusterMinor(
  client: KubeClient,
  signal?: AbortSignal,
): Promise<AssumedMinor | undefined> {
  try {
    const v = await client.request<{ major?: string; minor?: string; gitVersion?: string }>({
      path: "/version",
      signal,
    });
    return minorOfVersion(v);
  } catch (e) {
    if (signal?.aborted) throw e;
    return undefined;
  }
}

async function whoAmI(
  client: KubeClient,
  signal?: AbortSignal,
): Promise<RequestUserInfo | undefined> {
  try {
    const r = await selfSubjectReview(client, signal);
    const u = r.status?.userInfo;
    if (!u?.username) return undefined;
    return { username: u.username, groups: u.groups ?? [], ...(u.uid ? { uid: u.uid } : {}) };
  } catch (e) {
    if (signal?.aborted) throw e;
    return undefined;
  }
}

/**
 * Reads the admission state for the client's identity. `configurations: false` leaves the
 * admission objects out (the command line given them as files); params are then read for
 * `policies` instead. Fails with the apiserver's KubeApiError when discovery or namespaces
 * cannot be read.
 */
export async function readAdmissionState(
  client: KubeClient,
  opts: {
    signal?: AbortSignal;
    configurations?: boolean;
    policies?: Pick<SnapshotLists, "validatingAdmissionPolicies" | "mutatingAdmissionPolicies">;
    /**
     * The apiserver's static manifest directories as read (server/kube/admission-manifests.ts):
     * their objects join the snapshot marked static, their errors the notices.
     */
    manifests?: readonly ManifestDirState[];
  } = {},
): Promise<AdmissionState> {
  const { signal } = opts;
  // One signal serves discovery and every list read in parallel: more than the default ten.
  if (signal) setMaxListeners(64, signal);
  const notices: string[] = [];
  const [{ resources: discovery, unread }, namespaceState, identity, kubernetes] =
    await Promise.all([
      discover(client, notices, signal),
      readNamespaceState(client, signal),
      whoAmI(client, signal),
      clusterMinor(client, signal),
    ]);
  const objects =
    opts.configurations === false
      ? undefined
      : await readAdmissionObjects(client, discovery, notices, signal);
  const policies = objects ??
    opts.policies ?? { validatingAdmissionPolicies: [], mutatingAdmissionPolicies: [] };
  const { params, unserved } = await readParams(
    client,
    policies,
    discovery,
    notices,
    signal,
    unread,
  );
  const read: AdmissionSnapshot = {
    ...(objects ?? {}),
    namespaces: namespaceState.labels,
    ...(namespaceState.terminating.length > 0
      ? { terminatingNamespaces: namespaceState.terminating }
      : {}),
    discovery,
    params,
    ...(unserved.length > 0 ? { unservedParamKinds: unserved } : {}),
    ...(kubernetes ? { kubernetes } : {}),
  };
  const manifests = opts.manifests ?? [];
  notices.push(...manifestNotices(manifests));
  const snapshot = manifests.length > 0 ? withManifests(read, manifestObjectsOf(manifests)) : read;
  return { snapshot, identity, notices };
}

/** What the backend checks (lint L1, L6, L7) read about the services webhooks call. */
export interface BackendState {
  /** The services webhooks name (a missing one is absent); undefined when they cannot be read. */
  services?: V1Service[];
  /** Their endpoint slices. */
  endpointSlices?: V1EndpointSlice[];
  /** The pods the services select, metadata only (undefined when they may not be listed). */
  pods?: V1Pod[];
  /** Where a service selects no pod: the workloads whose pod template it selects. */
  workloads?: WorkloadLike[];
  /** The server's minor version (e.g. 37), when /version says. */
  serverMinor?: number;
}

/**
 * Reads the backends of the service-backed webhooks in `configurations`: each named service, its
 * endpoint slices, the pods it selects and, where it selects none, the workloads whose pod
 * template it selects. What the identity may not read is left out with
 * a notice (the checks that need it are then limited).
 */
export async function readBackendState(
  client: KubeClient,
  configurations: ReadonlyArray<{
    webhooks?: ReadonlyArray<{
      clientConfig?: { service?: { namespace?: string; name?: string } };
    }>;
  }>,
  notices: string[],
  signal?: AbortSignal,
): Promise<BackendState> {
  const refs = new Map<string, { namespace: string; name: string }>();
  for (const c of configurations)
    for (const w of c.webhooks ?? []) {
      const s = w.clientConfig?.service;
      if (s?.namespace && s.name)
        refs.set(`${s.namespace}/${s.name}`, { namespace: s.namespace, name: s.name });
    }
  const limited = new Set<string>();
  const tryRead = async <T>(what: string, fn: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof KubeApiError && e.status === 403) {
        limited.add(what);
        return undefined;
      }
      throw e;
    }
  };
  const services: V1Service[] = [];
  const endpointSlices: V1EndpointSlice[] = [];
  let servicesKnown = true;
  let slicesKnown = true;
  await mapLimit([...refs.values()], 4, async ({ namespace, name }) => {
    const ns = encodeURIComponent(namespace);
    const svc = await tryRead("services", async () => {
      try {
        return await client.request<V1Service>({
          path: `/api/v1/namespaces/${ns}/services/${encodeURIComponent(name)}`,
          signal,
        });
      } catch (e) {
        if (e instanceof KubeApiError && e.status === 404) return null;
        throw e;
      }
    });
    if (svc === undefined) servicesKnown = false;
    else if (svc) services.push(svc);
    const slices = await tryRead("endpointslices", () =>
      client.request<{ items?: V1EndpointSlice[] }>({
        path: `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`,
        query: { labelSelector: `kubernetes.io/service-name=${name}` },
        signal,
      }),
    );
    if (slices === undefined) slicesKnown = false;
    else endpointSlices.push(...(slices.items ?? []));
  });
  // The pods the services select (metadata only) and, where none runs, the pod templates of the
  // workloads they select: what the deadlock map reads (server/kube/backend-pods.ts).
  const targets = backendTargets({ validatingWebhookConfigurations: configurations }, services);
  const behind = await readBackendPods(client, targets, signal);
  notices.push(...behind.notices);
  const podsKnown = !Object.values(behind.forbidden).some((r) => r.includes("pods"));
  for (const what of limited)
    notices.push(`cannot read ${what} (403 Forbidden): the checks that need them are limited`);
  let serverMinor: number | undefined;
  try {
    const v = await client.request<{ minor?: string }>({ path: "/version", signal });
    const n = Number.parseInt(v.minor ?? "", 10);
    if (Number.isFinite(n)) serverMinor = n;
  } catch (e) {
    if (signal?.aborted) throw e;
  }
  return {
    ...(servicesKnown ? { services } : {}),
    ...(slicesKnown ? { endpointSlices } : {}),
    ...(podsKnown ? { pods: behind.pods } : {}),
    ...(behind.workloads.length > 0 ? { workloads: behind.workloads } : {}),
    ...(serverMinor !== undefined ? { serverMinor } : {}),
  };
}

function messageOf(e: unknown): string {
  if (e instanceof KubeApiError) return `${e.status} ${e.reason}`;
  return e instanceof Error ? e.message : String(e);
}
