/**
 * Collections as the apiserver lists them and as the dashboard caches them (pure, no imports:
 * shared by the browser, the server and the command line).
 */

export interface KubeObjectLike {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; uid?: string };
}

export interface CollectionData<T extends KubeObjectLike = KubeObjectLike> {
  resourceVersion: string;
  items: T[];
}

/**
 * A Kubernetes List as the apiserver answers it, and as /api/resources passes it on unchanged
 * (no parse and re-serialise on the way: the list costs what the apiserver's does).
 */
export interface KubeList<T = Record<string, unknown>> {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string };
  items?: T[] | null;
}

/** A List as the cache holds it: list items come without apiVersion and kind, filled in here. */
export function collectionFromList<T extends KubeObjectLike>(list: KubeList<T>): CollectionData<T> {
  const apiVersion = list.apiVersion;
  const kind = list.kind?.replace(/List$/, "");
  return {
    resourceVersion: list.metadata?.resourceVersion ?? "",
    items: (list.items ?? []).map((i) => ({ apiVersion, kind, ...i })),
  };
}
