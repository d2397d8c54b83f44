/**
 * Creating rendered objects on the real apiserver, for the chart's tests: the collection comes
 * from the cluster's discovery (server/kube/resolve-kind), the create is strict
 * (`fieldValidation=Strict`: an unknown or misplaced field is an error, not silently dropped).
 */
import { groupVersionPath, resourceForKind } from "@/server/kube/resolve-kind";
import type { KubeClient } from "@/server/kube/client";
import type { RenderedObject } from "./render";

/**
 * Creates `o` (or only dry-runs it), in its own namespace when the kind is namespaced. Returns
 * the stored (or would-be) object and the apiserver's warnings (e.g. Pod Security's).
 */
export async function createObject(
  client: KubeClient,
  o: RenderedObject,
  opts: { dryRun: boolean },
): Promise<{ body: { metadata?: { name?: string } }; warnings: string[] }> {
  const r = await resourceForKind(client, o.apiVersion, o.kind);
  if (!r) throw new Error(`${o.apiVersion} ${o.kind} is not served by this apiserver`);
  const base = groupVersionPath(o.apiVersion);
  if (r.namespaced && !o.metadata.namespace)
    throw new Error(`${o.kind} ${o.metadata.name} is namespaced but names no namespace`);
  const path = r.namespaced
    ? `${base}/namespaces/${encodeURIComponent(o.metadata.namespace ?? "")}/${r.name}`
    : `${base}/${r.name}`;
  return client.requestWithWarnings({
    method: "POST",
    path,
    query: { fieldValidation: "Strict", ...(opts.dryRun ? { dryRun: "All" } : {}) },
    body: o,
  });
}
