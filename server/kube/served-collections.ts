import "server-only";
import type { ResourceRef } from "@/lib/k8s/resources";
import { KubeApiError } from "@/lib/k8s/errors";
import { kubeClientFor } from "./client";

/** How long what discovery said is trusted before it is asked again. */
const TTL_MS = 30_000;

interface Entry {
  at: number;
  value: Promise<Set<string>>;
}

/**
 * Discovery answers per (context, path), cached briefly and shared by concurrent callers, so a
 * flood of requests for invented collections costs at most one discovery read per real group or
 * group version — never one per request, and never a watch.
 */
const cache = new Map<string, Entry>();

function cached(context: string, path: string, read: () => Promise<Set<string>>) {
  const key = `${context}\u0000${path}`;
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.value;
  const value = read().catch((e: unknown) => {
    cache.delete(key);
    throw e;
  });
  cache.set(key, { at: Date.now(), value });
  return value;
}

/** Versions of a group the cluster serves (core: "v1"); empty when the group is not served. */
function servedVersions(context: string, group: string): Promise<Set<string>> {
  const path = group === "" ? "/api" : `/apis/${group}`;
  return cached(context, path, async () => {
    try {
      const doc = await kubeClientFor(context).request<{
        versions?: Array<string | { version?: string }>;
      }>({ path });
      return new Set(
        (doc.versions ?? []).map((v) => (typeof v === "string" ? v : (v.version ?? ""))),
      );
    } catch (e) {
      if (e instanceof KubeApiError && e.status === 404) return new Set<string>();
      throw e;
    }
  });
}

/** Resources of one served group version that can be listed and watched. */
function watchableResources(context: string, group: string, version: string) {
  const path = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
  return cached(context, path, async () => {
    const list = await kubeClientFor(context).request<{
      resources?: Array<{ name: string; verbs?: string[] }>;
    }>({ path });
    return new Set(
      (list.resources ?? [])
        .filter((r) => r.verbs?.includes("list") && r.verbs.includes("watch"))
        .map((r) => r.name),
    );
  });
}

/** True when the cluster's discovery says it serves this collection with list and watch. */
export async function servesCollection(context: string, ref: ResourceRef): Promise<boolean> {
  const versions = await servedVersions(context, ref.group);
  if (!versions.has(ref.version)) return false;
  return (await watchableResources(context, ref.group, ref.version)).has(ref.resource);
}
