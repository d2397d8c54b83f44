import "server-only";
import { Recent } from "@/server/cache/recent";
import { seedStateKey } from "@/server/kube/collections-seed";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { exemptionMatrix } from "@/lib/admission/exemptions/exemptions";
import { withManifests } from "@/lib/admission/model/snapshot";
import {
  manifestObjectsOf,
  manifestWatcherFromEnv,
  type ManifestSetState,
} from "@/server/kube/admission-manifests";

import { NAMESPACES, snapshotOfCollections } from "@/lib/namespaces/matrix-collections";
import {
  readParams,
  requestOf,
  writeParams,
  type MatrixParams,
} from "@/lib/namespaces/matrix-params";
import { matrixPreview, type PackedPreview } from "@/lib/namespaces/matrix-preview";
import { parseRef, refToString } from "@/lib/k8s/resources";
import type { MatrixLists } from "./matrix-seed";

/**
 * The matrix's first screen for the URL's parameters, computed on the server from the seed with
 * the same lib/admission code the browser runs (the server has the CEL compiler anyway), so the
 * grid is in the HTML. It needs only the lists as the watch hub holds them, so it goes out before
 * the seed for the browser is even built. Undefined when there are no lists or anything fails.
 */
export function matrixPreviewSeed(
  lists: MatrixLists | undefined,
  search: Record<string, string | string[] | undefined>,
): PackedPreview | undefined {
  const namespaces = lists?.collections[refToString(NAMESPACES)];
  if (!lists || !namespaces) return undefined;
  try {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(search)) if (typeof v === "string") q.set(k, v);
    const params = readParams(q);
    // The same cluster state (every collection at the same resourceVersion) and parameters give
    // the same first screen: reuse it across page loads instead of compiling 1,000 hooks again.
    // The static hooks the apiserver loads from its manifest directories are columns too, as in
    // the browser's matrix: their generation is part of the state.
    const manifests = manifestWatcherFromEnv()?.state();
    const key = `${seedStateKey(lists)}\u0000${manifests?.generation ?? -1}\u0000${writeParams(params)}`;
    return recent.get(key, () => computePreview(lists, params, manifests));
  } catch {
    return undefined;
  }
}

/** First screens computed lately, by cluster state and parameters (least recently used first). */
const recent = new Recent<PackedPreview>(16);

function computePreview(
  lists: MatrixLists,
  params: MatrixParams,
  manifests: ManifestSetState | undefined,
): PackedPreview {
  const { snapshot: read } = snapshotOfCollections(
    Object.entries(lists.collections).map(([key, list]) => ({
      resource: parseRef(key)?.resource ?? "",
      items: list.items,
    })),
  );
  const snapshot = manifests ? withManifests(read, manifestObjectsOf(manifests.dirs)) : read;
  const m = exemptionMatrix(compileSnapshot(snapshot), params.groupBy, requestOf(params));
  return matrixPreview(m, params, writeParams(params));
}
