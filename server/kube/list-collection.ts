// Plain Node (no Next, no "server-only"): shared by the dashboard server and the command line;
// eslint.config.mjs keeps it that way, and lib/ and components/ still cannot import server/.
import { collectionPath, type ResourceRef } from "@/lib/k8s/resources";
import { collectionFromList, type CollectionData, type KubeList } from "@/lib/api/kube-list";
import type { KubeClient } from "./client";

/** Lists a collection as the client's identity (items carry apiVersion and kind). */
export async function listCollection(
  client: KubeClient,
  ref: ResourceRef,
  signal?: AbortSignal,
): Promise<CollectionData<Record<string, unknown>>> {
  const list = await client.request<KubeList>({ path: collectionPath(ref), signal });
  return collectionFromList(list);
}

/**
 * A collection's List exactly as the apiserver sent it, unparsed: the browser fills in item
 * kinds itself (collectionFromList), so the dashboard adds nothing but the request policy.
 */
export function listCollectionText(
  client: KubeClient,
  ref: ResourceRef,
  signal?: AbortSignal,
): Promise<string> {
  return client.requestText({ path: collectionPath(ref), signal });
}
