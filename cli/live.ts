/**
 * `--context NAME`: live state read through server/kube, the one door to a cluster (kubeconfig
 * loading, identity, KubeApiError). Loaded with a dynamic import so commands that stay offline
 * never pay for @kubernetes/client-node.
 */
import type { DiscoveryResource } from "@/lib/admission/snapshot";
import type { JsonObject } from "@/lib/admission/validate/json";
import { isObject, obj, str } from "@/lib/admission/validate/json";
import type { V1EndpointSlice, V1Pod, V1Service } from "@/lib/k8s/types";
import { loadKubeConfig, kubeConfigFor } from "@/server/kube/config";
import { KubeClient } from "@/server/kube/client";
import { KubeApiError } from "@/lib/k8s/errors";
import { InputError } from "./errors";
import type { Notice } from "./snapshot";

const G = "admissionregistration.k8s.io";

/** A connection to one context. */
export interface Live {
  context: string;
  client: KubeClient;
}

/** Opens `context` from the kubeconfig (`kubeconfig` overrides KUBECONFIG). */
export function connect(context: string, kubeconfig: string | undefined): Live {
  if (kubeconfig !== undefined) process.env.KUBECONFIG = kubeconfig;
  let names: string[];
  try {
    names = loadKubeConfig()
      .getContexts()
      .map((c) => c.name);
  } catch (e) {
    throw new InputError(e instanceof Error ? e.message : String(e));
  }
  if (!names.includes(context))
    throw new InputError(
      `context "${context}" is not in the kubeconfig (${process.env.KUBECONFIG ?? "~/.kube/config"}); contexts: ${names.join(", ") || "none"}`,
    );
  try {
    return { context, client: new KubeClient(context, kubeConfigFor(context)) };
  } catch (e) {
    throw new InputError(e instanceof Error ? e.message : String(e));
  }
}

/** A KubeApiError as one line for the user, naming the context. */
export function liveError(live: Live, what: string, e: unknown): InputError {
  const msg =
    e instanceof KubeApiError
      ? `${e.message} (${e.status} ${e.reason})`
      : e instanceof Error
        ? e.message
        : String(e);
  return new InputError(`context ${live.context}: cannot read ${what}: ${msg}`);
}

async function list(live: Live, path: string): Promise<JsonObject[]> {
  const body = await live.client.request<{ items?: JsonObject[] }>({ path, timeoutMs: 30_000 });
  return (body.items ?? []).filter(isObject);
}

/** Lists a kind, setting apiVersion/kind on each item (list responses leave them out). */
async function listKind(
  live: Live,
  apiVersion: string,
  kind: string,
  resource: string,
): Promise<JsonObject[]> {
  const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const items = await list(live, `${base}/${resource}`);
  return items.map((i) => ({ apiVersion, kind, ...i }));
}

/**
 * Every admission configuration the cluster stores, at the newest version it serves (mutating
 * admission policies: v1, else v1beta1, else v1alpha1).
 */
export async function readConfigurations(live: Live): Promise<JsonObject[]> {
  const out: JsonObject[] = [];
  const kinds: [string, string][] = [
    ["ValidatingWebhookConfiguration", "validatingwebhookconfigurations"],
    ["MutatingWebhookConfiguration", "mutatingwebhookconfigurations"],
    ["ValidatingAdmissionPolicy", "validatingadmissionpolicies"],
    ["ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings"],
    ["MutatingAdmissionPolicy", "mutatingadmissionpolicies"],
    ["MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybindings"],
  ];
  for (const [kind, resource] of kinds) {
    for (const version of ["v1", "v1beta1", "v1alpha1"]) {
      try {
        out.push(...(await listKind(live, `${G}/${version}`, kind, resource)));
        break;
      } catch (e) {
        // Not served at this version (or at all, on an older cluster): nothing of that kind there.
        if (e instanceof KubeApiError && e.status === 404) continue;
        throw liveError(live, `${resource}`, e);
      }
    }
  }
  return out;
}

/** Namespace name → labels. */
export async function readNamespaces(live: Live): Promise<Record<string, Record<string, string>>> {
  let items: JsonObject[];
  try {
    items = await list(live, "/api/v1/namespaces");
  } catch (e) {
    throw liveError(live, "namespaces", e);
  }
  const out: Record<string, Record<string, string>> = {};
  for (const ns of items) {
    const meta = obj(ns, "metadata");
    const labels: Record<string, string> = {};
    for (const [k, v] of Object.entries(obj(meta, "labels") ?? {}))
      if (typeof v === "string") labels[k] = v;
    out[str(meta, "name")] = labels;
  }
  return out;
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  storageVersionHash?: string;
}

async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (t: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) {
      const item = items[i];
      if (item !== undefined) out[i] = await fn(item);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return out;
}

/**
 * Every served resource of every group version, with subresources and their kinds. Resources
 * with the same storageVersionHash share storage, which is what matchPolicy Equivalent follows.
 */
export async function readDiscovery(live: Live): Promise<DiscoveryResource[]> {
  const gvs: string[] = ["v1"];
  try {
    const groups = await live.client.request<{
      groups?: { name: string; versions?: { groupVersion: string }[] }[];
    }>({ path: "/apis" });
    for (const g of groups.groups ?? []) for (const v of g.versions ?? []) gvs.push(v.groupVersion);
  } catch (e) {
    throw liveError(live, "discovery (/apis)", e);
  }
  const lists = await mapLimit(gvs, 4, async (gv) => {
    try {
      const path = gv === "v1" ? "/api/v1" : `/apis/${gv}`;
      return {
        gv,
        resources:
          (await live.client.request<{ resources?: ApiResource[] }>({ path })).resources ?? [],
      };
    } catch {
      // An aggregated API that is down must not stop the command; its resources are just unknown.
      return { gv, resources: [] };
    }
  });
  const out: DiscoveryResource[] = [];
  for (const { gv, resources } of lists) {
    const slash = gv.indexOf("/");
    const group = slash < 0 ? "" : gv.slice(0, slash);
    const version = slash < 0 ? gv : gv.slice(slash + 1);
    for (const r of resources) {
      if (r.name.includes("/")) continue;
      const subresources = resources
        .filter((s) => s.name.startsWith(`${r.name}/`))
        .map((s) => ({
          name: s.name.slice(r.name.length + 1),
          kind: { group: s.group ?? group, version: s.version ?? version, kind: s.kind },
        }));
      out.push({
        group,
        version,
        resource: r.name,
        kind: r.kind,
        namespaced: r.namespaced,
        subresources,
        ...(r.storageVersionHash ? { equivalenceKey: `hash:${r.storageVersionHash}` } : {}),
      });
    }
  }
  return out;
}

/** The server's minor version (e.g. 37), or undefined when /version does not say. */
export async function readServerMinor(live: Live): Promise<number | undefined> {
  try {
    const v = await live.client.request<{ minor?: string }>({ path: "/version" });
    const n = Number.parseInt(v.minor ?? "", 10);
    return Number.isFinite(n) ? n : undefined;
  } catch (e) {
    throw liveError(live, "/version", e);
  }
}

/** What the backend checks read; a list the identity may not read is left out with a notice. */
export async function readBackends(
  live: Live,
  notices: Notice[],
): Promise<{ services?: V1Service[]; endpointSlices?: V1EndpointSlice[]; pods?: V1Pod[] }> {
  const at = `cluster ${live.context}`;
  const tryList = async <T>(what: string, path: string): Promise<T[] | undefined> => {
    try {
      return (await list(live, path)) as unknown as T[];
    } catch (e) {
      if (e instanceof KubeApiError && (e.status === 403 || e.status === 404)) {
        notices.push({
          at,
          message: `cannot list ${what} (${e.status} ${e.reason}): checks that need them are limited`,
        });
        return undefined;
      }
      throw liveError(live, what, e);
    }
  };
  const [services, endpointSlices, pods] = await Promise.all([
    tryList<V1Service>("services", "/api/v1/services"),
    tryList<V1EndpointSlice>("endpointslices", "/apis/discovery.k8s.io/v1/endpointslices"),
    tryList<V1Pod>("pods", "/api/v1/pods"),
  ]);
  return { services, endpointSlices, pods };
}

/** Who the context is, as the apiserver sees it (SelfSubjectReview); undefined if it will not say. */
export async function whoAmI(
  live: Live,
): Promise<{ username: string; groups: string[]; uid?: string } | undefined> {
  try {
    const r = await live.client.request<{
      status?: { userInfo?: { username?: string; groups?: string[]; uid?: string } };
    }>({
      method: "POST",
      path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
      body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
    });
    const u = r.status?.userInfo;
    if (!u?.username) return undefined;
    return { username: u.username, groups: u.groups ?? [], ...(u.uid ? { uid: u.uid } : {}) };
  } catch {
    return undefined;
  }
}
