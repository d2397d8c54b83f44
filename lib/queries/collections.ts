/** Collections in the query cache, and how live events patch them. */
import { queryOptions } from "@tanstack/react-query";
import type { ResourceRef } from "@/lib/k8s/resources";
import { callApi } from "@/lib/api/client";
import {
  collectionFromList,
  type CollectionData,
  type KubeList,
  type KubeObjectLike,
} from "@/lib/api/kube-list";
import { listCollectionRoute, type LiveMessage } from "@/lib/api/resources";
import { queryKeys } from "./keys";

/** Query options for a collection; live events keep it fresh, so it never goes stale by time. */
export function collectionQuery<T extends KubeObjectLike = KubeObjectLike>(
  context: string,
  ref: ResourceRef,
) {
  return queryOptions({
    queryKey: queryKeys.collection(context, ref),
    queryFn: async ({ signal }) =>
      collectionFromList(
        // The route answers the apiserver's List of the collection's objects as is.
        (await callApi(listCollectionRoute, {
          params: {
            group: ref.group === "" ? "core" : ref.group,
            version: ref.version,
            resource: ref.resource,
          },
          signal,
        })) as KubeList<T>,
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

const keyOf = (o: KubeObjectLike) => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;

/**
 * The collection after a batch of live messages, in order (pure): the same result as applying
 * them one by one with applyLiveMessage, in one pass over the items however many messages there
 * are (one by one, each event copies and searches the whole list: a burst of 1,000 events over
 * 1,000 objects is a million steps and 1,000 new lists). The collection is returned unchanged
 * (the same object) when no message changes it.
 */
export function applyLiveMessages<T extends KubeObjectLike>(
  data: CollectionData<T> | undefined,
  msgs: readonly LiveMessage<T>[],
): CollectionData<T> | undefined {
  let base = data;
  let start = 0;
  // Messages up to the last SYNC act on what it holds: start from the last SYNC applied.
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i] as LiveMessage<T>;
    if (m.type !== "SYNC") continue;
    let held = data;
    for (let j = 0; j <= i; j++) held = applyLiveMessage(held, msgs[j] as LiveMessage<T>);
    base = held;
    start = i + 1;
    break;
  }
  if (!base) return base;
  // The latest object (null: deleted) per key; a key deleted and added again within the batch
  // is moved to the end, where one-by-one application would have appended it.
  const latest = new Map<string, T | null>();
  const moved = new Set<string>();
  let resourceVersion = base.resourceVersion;
  for (let i = start; i < msgs.length; i++) {
    const m = msgs[i] as LiveMessage<T>;
    if (m.type !== "ADDED" && m.type !== "MODIFIED" && m.type !== "DELETED") continue;
    const k = keyOf(m.object);
    if (m.type !== "DELETED" && latest.get(k) === null) {
      latest.delete(k);
      moved.add(k);
    }
    latest.set(k, m.type === "DELETED" ? null : m.object);
    resourceVersion = m.object.metadata?.resourceVersion ?? resourceVersion;
  }
  if (latest.size === 0) return base;
  const items: T[] = [];
  const placed = new Set<string>();
  for (const item of base.items) {
    const k = keyOf(item);
    const next = latest.get(k);
    if (next === undefined) items.push(item);
    else if (next !== null && !moved.has(k)) {
      items.push(next);
      placed.add(k);
    }
  }
  for (const [k, next] of latest) if (next !== null && !placed.has(k)) items.push(next);
  return { resourceVersion, items };
}

/** Why a collection's live stream is not keeping it current: the hub's upstream watch failed. */
export interface LiveProblem {
  status: number;
  reason: string;
  message: string;
}

/**
 * The collections whose upstream watch is failing, after these messages of one collection (pure):
 * an ERROR marks it with the apiserver's status, reason and message (the data the browser holds
 * stays as last seen, and no event reaches it until the watch recovers); a SYNC or CURRENT
 * clears it (the hub listed again: the data is current). Returns `problems` itself when nothing
 * changed.
 */
export function nextLiveProblems(
  problems: ReadonlyMap<string, LiveProblem>,
  collection: string,
  msgs: readonly LiveMessage[],
): ReadonlyMap<string, LiveProblem> {
  let out = problems;
  for (const m of msgs) {
    if (m.type === "ERROR") {
      const was = out.get(collection);
      if (was && was.message === m.error.message && was.status === m.error.status) continue;
      out = new Map(out).set(collection, m.error);
    } else if ((m.type === "SYNC" || m.type === "CURRENT") && out.has(collection)) {
      const next = new Map(out);
      next.delete(collection);
      out = next;
    }
  }
  return out;
}
