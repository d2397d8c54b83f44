import "server-only";
import { refToString } from "@/lib/k8s/resources";
import {
  matrixCollections,
  NAMESPACES,
  packNamespaces,
  type PackedNamespaces,
} from "@/lib/namespaces/collections";
import {
  collectionsSeed,
  withoutManagedFields,
  type CollectionsSeed,
} from "@/server/kube/collections-seed";
import type { KubeObject } from "@/server/kube/watch-hub";
import type { OverviewData } from "@/lib/queries/overview";
import type { CollectionData } from "@/lib/queries/collections";

/** The exemption matrix's seed: configurations as collections, namespaces packed. */
export interface MatrixSeed {
  context: string;
  overview: OverviewData;
  collections: Record<string, CollectionData>;
  namespaces: PackedNamespaces | undefined;
}

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
 * The seed the browser's live matrix starts from: configurations without managedFields, and the
 * namespaces packed (names, creation times and an index into the distinct label sets: at 10,000
 * namespaces a fraction of the bytes).
 */
export function matrixSeedOf(lists: MatrixLists): MatrixSeed {
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
    context: lists.context,
    overview: lists.overview,
    collections,
    namespaces: namespaces
      ? packNamespaces(namespaces.resourceVersion, namespaces.items)
      : undefined,
  };
}
