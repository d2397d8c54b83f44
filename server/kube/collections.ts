// Plain Node (no Next, no "server-only"): shared by the dashboard server and the command line;
// eslint.config.mjs keeps it that way, and lib/ and components/ still cannot import server/.
import { collectionPath, type ResourceRef } from "@/lib/k8s/resources";
import type { KubeClient } from "./client";

/** A collection as the dashboard serves it: items carry apiVersion and kind. */
export interface Collection {
  resourceVersion: string;
  items: Array<Record<string, unknown>>;
}

/** Lists a collection as the client's identity. */
export async function listCollection(
  client: KubeClient,
  ref: ResourceRef,
  signal?: AbortSignal,
): Promise<Collection> {
  const list = await client.request<{
    apiVersion?: string;
    kind?: string;
    items: Array<Record<string, unknown>>;
    metadata?: { resourceVersion?: string };
  }>({ path: collectionPath(ref), signal });
  const kind = list.kind?.replace(/List$/, "");
  return {
    resourceVersion: list.metadata?.resourceVersion ?? "",
    items: list.items.map((i) => ({ apiVersion: list.apiVersion, kind, ...i })),
  };
}
