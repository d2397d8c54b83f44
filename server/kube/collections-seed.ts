import "server-only";
import { setMaxListeners } from "node:events";
import { headers } from "next/headers";
import { collectionPath, refToString, type ResourceRef } from "@/lib/k8s/resources";
import type { OverviewData, ServedVersion, ServerVersion } from "@/lib/api/overview";
import { recentReads } from "@/lib/k8s/recent-reads";
import type { CollectionData, KubeObjectLike } from "@/lib/api/kube-list";
import type { KubeObject } from "./watch-hub";
import { startingContext } from "./identity";
import { kubeClientFor, type KubeClient } from "./client";
import { isSharedMode } from "./config";
import { admissionApis, serverVersion } from "./discovery";
import { watchHub } from "./watch-hub";

/**
 * What a list page needs for its first render, read on the server while the page streams, so
 * the browser paints rows from the HTML instead of waiting for its JavaScript and then three
 * dependent round trips (contexts → discovery → lists). Collections come from the watch hub, so
 * the live stream the browser opens next starts from the same resourceVersion and its first
 * SYNC changes nothing.
 */
export interface CollectionsSeed<T extends KubeObjectLike = KubeObjectLike> {
  context: string;
  overview: OverviewData;
  /** By refToString of the collection. */
  collections: Record<string, CollectionData<T>>;
}

/** Past this the page renders without a seed and the browser reads the cluster itself. */
const BUDGET_MS = 2_000;

/**
 * Discovery (the server's version and the admission APIs it serves) per context, reused for a few
 * seconds: a page load otherwise waits on two rounds of apiserver requests before it can render,
 * and what they say changes rarely (the live stream trusts discovery for 30 s, the browser the
 * seed's for 60 s).
 */
const DISCOVERY_TTL_MS = 10_000;
const recentDiscovery = recentReads<{ version: ServerVersion; apis: ServedVersion[] }>(
  DISCOVERY_TTL_MS,
);

function discovery(context: string, client: KubeClient, signal: AbortSignal) {
  // The shared read is bounded by its own budget, not by the first caller's request.
  const shared = recentDiscovery(context, async () => {
    const own = AbortSignal.timeout(BUDGET_MS);
    const [version, apis] = await Promise.all([
      serverVersion(client, own),
      admissionApis(client, own),
    ]);
    return { version, apis };
  });
  return new Promise<Awaited<typeof shared>>((resolve, reject) => {
    const abort = () => reject(new Error("the page's seed ran out of time"));
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    shared.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

/**
 * managedFields are server bookkeeping no view reads, and ~40% of the bytes; the watch stream's
 * first SYNC brings the whole objects right after if anything changed.
 */
export function withoutManagedFields(item: KubeObject): KubeObject {
  const metadata = item.metadata as Record<string, unknown> | undefined;
  if (!metadata || !("managedFields" in metadata)) return item;
  const { managedFields: _dropped, ...rest } = metadata;
  return { ...item, metadata: rest };
}

/** What identifies a state of a seed's collections: its context and each one's resourceVersion. */
export function seedStateKey(seed: CollectionsSeed): string {
  return [
    seed.context,
    ...Object.entries(seed.collections).map(([k, c]) => `${k}@${c.resourceVersion}`),
  ].join("\u0000");
}

/**
 * `make`'s result as JSON, made once per context and state of the collections: the last one per
 * context is kept, so a reload of an unchanged cluster streams the same string instead of copying
 * and serialising every object again (megabytes at 10,000 objects, made while the browser paints
 * the first screen).
 */
export function seedJsonPerState<S extends CollectionsSeed>(
  make: (seed: S) => unknown,
): (seed: S) => string {
  const sent = new Map<string, { state: string; json: string }>();
  return (seed) => {
    const state = seedStateKey(seed);
    const last = sent.get(seed.context);
    if (last?.state === state) return last.json;
    const json = JSON.stringify(make(seed));
    sent.set(seed.context, { state, json });
    return json;
  };
}

/**
 * `make()` in a task after the current one, for a page's seed that streams after its first screen:
 * the first screen is rendered and sent first. Undefined when making it fails (the browser then
 * reads the collections itself).
 */
export function afterFirstScreen(make: () => string): Promise<string | undefined> {
  return new Promise((resolve) =>
    setTimeout(() => {
      try {
        resolve(make());
      } catch {
        resolve(undefined);
      }
    }, 0),
  );
}

/**
 * The seed for the starting identity of the request: discovery, then the collections `pick`
 * chooses from it, each item passed through `trim`. Undefined when anything fails or takes too
 * long (the browser then reads the cluster and reports errors as before).
 */
export async function collectionsSeed<T extends KubeObjectLike>(
  pick: (apis: ServedVersion[]) => ResourceRef[],
  trim: (ref: ResourceRef, item: KubeObject) => KubeObject = (_, item) =>
    withoutManagedFields(item),
): Promise<CollectionsSeed<T> | undefined> {
  // Shared mode: the watch cache holds the service account's view, not the user's; the browser
  // reads through the API instead, where each user's RBAC is checked.
  if (isSharedMode()) return undefined;
  const abort = new AbortController();
  // One signal for discovery and every list read in parallel: more than the default ten listeners.
  setMaxListeners(32, abort.signal);
  const timer = setTimeout(() => abort.abort(), BUDGET_MS);
  try {
    const context = startingContext(await headers());
    const client = kubeClientFor(context);
    const { signal } = abort;
    const { version, apis } = await discovery(context, client, signal);
    const overview: OverviewData = { context, server: client.server, version, apis };
    const refs = pick(apis);
    // From the watch hub: the browser's live stream then opens on this same snapshot.
    const lists = await Promise.all(
      refs.map((ref) => watchHub().current(context, collectionPath(ref), signal)),
    );
    const collections: Record<string, CollectionData<T>> = {};
    refs.forEach((ref, i) => {
      const list = lists[i];
      if (!list) return;
      collections[refToString(ref)] = {
        resourceVersion: list.resourceVersion,
        items: list.items.map((item) => trim(ref, item)) as unknown as T[],
      };
    });
    return { context, overview, collections };
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
