import "server-only";
import { matrixCollections, namespaceEssentials, NAMESPACES } from "@/lib/namespaces/collections";
import {
  collectionsSeed,
  withoutManagedFields,
  type CollectionsSeed,
} from "@/server/kube/collections-seed";

/**
 * The exemption matrix's seed, read as the request's identity from the watch hub: namespaces
 * (names, labels and creation times only: at 10,000 namespaces that is a fifth of the bytes)
 * and every served webhook configuration, policy and binding.
 */
export function matrixSeed(): Promise<CollectionsSeed | undefined> {
  return collectionsSeed(matrixCollections, (ref, item) =>
    ref === NAMESPACES ? namespaceEssentials(item) : withoutManagedFields(item),
  );
}
