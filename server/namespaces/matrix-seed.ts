import "server-only";
import { refToString } from "@/lib/k8s/resources";
import {
  matrixCollections,
  NAMESPACES,
  packNamespaces,
  type PackedNamespaces,
} from "@/lib/namespaces/collections";
import { collectionsSeed, withoutManagedFields } from "@/server/kube/collections-seed";
import type { OverviewData } from "@/lib/queries/overview";
import type { CollectionData } from "@/lib/queries/collections";

/** The exemption matrix's seed: configurations as collections, namespaces packed. */
export interface MatrixSeed {
  context: string;
  overview: OverviewData;
  collections: Record<string, CollectionData>;
  namespaces: PackedNamespaces | undefined;
}

/**
 * The exemption matrix's seed, read as the request's identity from the watch hub: every served
 * webhook configuration, policy and binding kind, and the namespaces packed (names, creation
 * times and an index into the distinct label sets: at 10,000 namespaces a fraction of the bytes).
 */
export async function matrixSeed(): Promise<MatrixSeed | undefined> {
  const seed = await collectionsSeed(matrixCollections, (ref, item) =>
    ref === NAMESPACES ? item : withoutManagedFields(item),
  );
  if (!seed) return undefined;
  const key = refToString(NAMESPACES);
  const list = seed.collections[key];
  const { [key]: _packed, ...collections } = seed.collections;
  return {
    ...seed,
    collections,
    namespaces: list ? packNamespaces(list.resourceVersion, list.items) : undefined,
  };
}
