import "server-only";
import { compileSnapshot } from "@/lib/admission/compile";
import { exemptionMatrix } from "@/lib/admission/exemptions";
import type { AdmissionSnapshot } from "@/lib/admission/snapshot";
import type { Labels } from "@/lib/admission/selectors";

import { SNAPSHOT_FIELD, type PackedNamespaces } from "@/lib/namespaces/collections";
import {
  readParams,
  requestOf,
  writeParams,
  type MatrixParams,
} from "@/lib/namespaces/matrix-params";
import { matrixPreview, type MatrixPreview } from "@/lib/namespaces/matrix-preview";
import { parseRef } from "@/lib/k8s/resources";
import type { MatrixSeed } from "./matrix-seed";

/**
 * The matrix's first screen for the URL's parameters, computed on the server from the seed with
 * the same lib/admission code the browser runs (the server has the CEL compiler anyway), so the
 * grid is in the HTML. Undefined when there is no seed or anything fails.
 */
export function matrixPreviewSeed(
  seed: MatrixSeed | undefined,
  search: Record<string, string | string[] | undefined>,
): MatrixPreview | undefined {
  if (!seed?.namespaces) return undefined;
  try {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(search)) if (typeof v === "string") q.set(k, v);
    const params = readParams(q);
    // The same cluster state (every collection at the same resourceVersion) and parameters give
    // the same first screen: reuse it across page loads instead of compiling 1,000 hooks again.
    const key = [
      seed.context,
      writeParams(params),
      seed.namespaces.resourceVersion,
      ...Object.entries(seed.collections).map(([k, c]) => `${k}@${c.resourceVersion}`),
    ].join("\u0000");
    const hit = recent.get(key);
    if (hit) {
      recent.delete(key);
      recent.set(key, hit);
      return hit;
    }
    const preview = computePreview(seed, seed.namespaces, params);
    if (recent.size >= RECENT) {
      const oldest = recent.keys().next().value;
      if (oldest !== undefined) recent.delete(oldest);
    }
    recent.set(key, preview);
    return preview;
  } catch {
    return undefined;
  }
}

/** First screens computed lately, by cluster state and parameters (least recently used first). */
const recent = new Map<string, MatrixPreview>();
const RECENT = 16;

function computePreview(
  seed: MatrixSeed,
  packed: PackedNamespaces,
  params: MatrixParams,
): MatrixPreview {
  const namespaces: Record<string, Labels> = {};
  const p = packed;
  p.names.forEach((name, i) => {
    namespaces[name] = { ...p.labelSets[p.sets[i] ?? 0], "kubernetes.io/metadata.name": name };
  });
  const snapshot: Record<string, unknown> = { namespaces };
  for (const [key, list] of Object.entries(seed.collections)) {
    const field = SNAPSHOT_FIELD[parseRef(key)?.resource ?? ""];
    if (field) snapshot[field] = list.items;
  }
  const m = exemptionMatrix(
    compileSnapshot(snapshot as AdmissionSnapshot),
    params.groupBy,
    requestOf(params),
  );
  return matrixPreview(m, params, writeParams(params));
}
