/**
 * The filter of the recent changes across the cluster as the /changes page's URL holds it
 * (`?actor=&kind=&name=&cluster=`, `cluster` naming the kubeconfig context the change was seen
 * through, or `unknown`; not `context`, which names the tab's own): read the same way by the server (the page's first screen) and the
 * browser (the live page), so the first screen is the one the browser would read.
 */
import { isHistoryKind, type HistoryKind } from "./kinds";

export interface RecentFilter {
  actor?: string;
  kind?: HistoryKind;
  name?: string;
  /** The kubeconfig context a change was seen through, or "unknown" for none known. */
  cluster?: string;
}

/** The filter of a URL's search parameters (unknown kinds and empty values are no filter). */
export function recentFilterOf(params: Pick<URLSearchParams, "get">): RecentFilter {
  const kind = params.get("kind") ?? "";
  return {
    ...(params.get("actor") ? { actor: params.get("actor") ?? "" } : {}),
    ...(isHistoryKind(kind) ? { kind } : {}),
    ...(params.get("name") ? { name: params.get("name") ?? "" } : {}),
    ...(params.get("cluster") ? { cluster: params.get("cluster") ?? "" } : {}),
  };
}

/** Whether two filters ask for the same changes. */
export function sameRecentFilter(a: RecentFilter, b: RecentFilter): boolean {
  return (
    (a.actor ?? "") === (b.actor ?? "") &&
    (a.kind ?? "") === (b.kind ?? "") &&
    (a.name ?? "") === (b.name ?? "") &&
    (a.cluster ?? "") === (b.cluster ?? "")
  );
}
