/** Collections in the query cache, and how live events patch them. */
import { queryOptions } from "@tanstack/react-query";
import { refToString, type ResourceRef } from "@/lib/k8s/resources";
import { apiFetch } from "./fetch";
import { queryKeys } from "./keys";
import {
  collectionFromList,
  type CollectionData,
  type KubeList,
  type KubeObjectLike,
} from "./kube-list";

export type { CollectionData, KubeList, KubeObjectLike } from "./kube-list";

/** A message of /api/watch. */
export type LiveMessage<T extends KubeObjectLike = KubeObjectLike> = { collection: string } & (
  | { type: "SYNC"; resourceVersion: string; items: T[] }
  /** Instead of a first SYNC when the browser said it holds this resourceVersion (`?rv=`). */
  | { type: "CURRENT"; resourceVersion: string }
  | { type: "ADDED" | "MODIFIED" | "DELETED"; object: T }
  | { type: "ERROR"; error: { status: number; reason: string; message: string } }
);

/** Query options for a collection; live events keep it fresh, so it never goes stale by time. */
export function collectionQuery<T extends KubeObjectLike = KubeObjectLike>(
  context: string,
  ref: ResourceRef,
) {
  return queryOptions({
    queryKey: queryKeys.collection(context, ref),
    queryFn: async ({ signal }) =>
      collectionFromList(
        await apiFetch<KubeList<T>>(`/api/resources/${refToString(ref)}`, { signal }),
      ),
    staleTime: Infinity,
  });
}

function same(a: KubeObjectLike, b: KubeObjectLike): boolean {
  return a.metadata?.name === b.metadata?.name && a.metadata?.namespace === b.metadata?.namespace;
}

/**
 * The collection after one live message (pure). SYNC replaces it; ADDED/MODIFIED upsert by
 * namespace/name; DELETED removes. A SYNC at the resourceVersion the cache holds is a no-op. Events older than what the cache holds are ignored.
 */
export function applyLiveMessage<T extends KubeObjectLike>(
  data: CollectionData<T> | undefined,
  msg: LiveMessage<T>,
): CollectionData<T> | undefined {
  if (msg.type === "SYNC") {
    // The same snapshot the cache already holds (e.g. the server-rendered seed): keep the data
    // as is, so nothing downstream recomputes or re-renders.
    if (data && msg.resourceVersion && data.resourceVersion === msg.resourceVersion) return data;
    return { resourceVersion: msg.resourceVersion, items: msg.items };
  }
  // The browser's copy is the stream's snapshot: nothing to replace.
  if (msg.type === "CURRENT" || msg.type === "ERROR" || !data) return data;
  const obj = msg.object;
  const rv = obj.metadata?.resourceVersion ?? data.resourceVersion;
  if (msg.type === "DELETED") {
    return { resourceVersion: rv, items: data.items.filter((i) => !same(i, obj)) };
  }
  const idx = data.items.findIndex((i) => same(i, obj));
  if (idx === -1) return { resourceVersion: rv, items: [...data.items, obj] };
  const items = data.items.slice();
  items[idx] = obj;
  return { resourceVersion: rv, items };
}
