import "server-only";
import { refToString } from "@/lib/k8s/resources";
import {
  matrixCollections,
  NAMESPACES,
  packNamespaces,
  type PackedNamespaces,
} from "@/lib/namespaces/matrix-collections";
import {
  collectionsSeed,
  seedJsonPerState,
  withoutManagedFields,
  type CollectionsSeed,
} from "@/server/kube/collections-seed";
import type { KubeObject } from "@/server/kube/watch-hub";
import type { CollectionData } from "@/lib/api/kube-list";

/**
 * The collections the browser's live matrix starts from: configurations as collections,
 * namespaces packed. Megabytes at 10,000 namespaces and 1,000 hooks, so the page sends them after
 * its first screen (with the context and discovery they were read with, which go first).
 */
export interface MatrixSeedCollections {
  collections: Record<string, CollectionData>;
  namespaces: PackedNamespaces | undefined;
}

/**
 * The seed's collections as JSON (see matrixSeedCollections), made once per context and state of
 * the collections: a string is streamed to the browser as it is, and parsed there only when read.
 */
export const matrixSeedCollectionsJson = seedJsonPerState<MatrixLists>((lists) =>
  matrixSeedCollections(lists),
);

/** What the matrix reads, as the watch hub holds it: every collection whole, nothing copied. */
export type MatrixLists = CollectionsSeed<KubeObject>;

/**
 * The lists the exemption matrix reads, as the request's identity, from the watch hub: every
 * served webhook configuration, policy and binding kind, and the namespaces.
 */
export function readMatrixLists(): Promise<MatrixLists | undefined> {
  return collectionsSeed<KubeObject>(matrixCollections, (_ref, item) => item);
}

/**
 * The collections the browser's live matrix starts from: configurations without managedFields,
 * and the namespaces packed (names, creation times and an index into the distinct label sets: at
 * 10,000 namespaces a fraction of the bytes).
 */
export function matrixSeedCollections(lists: MatrixLists): MatrixSeedCollections {
  const key = refToString(NAMESPACES);
  const collections: Record<string, CollectionData> = {};
  for (const [k, list] of Object.entries(lists.collections)) {
    if (k === key) continue;
    collections[k] = {
      resourceVersion: list.resourceVersion,
      items: list.items.map(withoutManagedFields),
    };
  }
  const namespaces = lists.collections[key];
  return {
    collections,
    namespaces: namespaces
      ? packNamespaces(namespaces.resourceVersion, namespaces.items)
      : undefined,
  };
}
