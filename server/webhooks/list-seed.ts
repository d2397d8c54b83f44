import "server-only";
import { Recent } from "@/server/cache/recent";
import { servedHookKinds } from "@/lib/webhooks/hook-kinds";
import { hookRows, type ConfigLike } from "@/lib/webhooks/summary";
import { parseListState } from "@/lib/webhooks/list-filter";
import {
  FIRST_SCREEN_ROWS,
  listPreview,
  previewable,
  type PackedListPreview,
} from "@/lib/webhooks/list-preview";
import { refToString } from "@/lib/k8s/resources";
import type { CollectionData } from "@/lib/api/kube-list";
import type { WebhookListSeedCollections } from "@/lib/webhooks/list-seed";
import {
  collectionsSeed,
  seedJsonPerState,
  seedStateKey,
  withoutManagedFields,
  type CollectionsSeed,
} from "@/server/kube/collections-seed";
import type { KubeObject } from "@/server/kube/watch-hub";

/** The webhook configurations as the watch hub holds them: every served kind, nothing copied. */
export type WebhookLists = CollectionsSeed<KubeObject>;

/**
 * Every served webhook configuration kind, as the request's identity, from the watch hub. The
 * objects are the hub's own (not copies), so rows made from them (hookRows keeps them per object)
 * are made once per change, not once per page load.
 */
export function readWebhookLists(): Promise<WebhookLists | undefined> {
  return collectionsSeed<KubeObject>(
    (apis) => servedHookKinds(apis).flatMap((k) => (k.readAt ? [k.readAt] : [])),
    (_ref, item) => item,
  );
}

/**
 * The collections the browser's live list starts from (WebhookListSeedCollections), as JSON:
 * items without managedFields, made once per context and state of the lists.
 */
export const webhookSeedCollectionsJson = seedJsonPerState<WebhookLists>((lists) => {
  const collections: WebhookListSeedCollections = {};
  for (const [k, list] of Object.entries(lists.collections)) {
    collections[k] = {
      resourceVersion: list.resourceVersion,
      items: list.items.map(withoutManagedFields) as ConfigLike[],
    } satisfies CollectionData<ConfigLike>;
  }
  return collections;
});

/** First screens cut lately, by state of the lists and list state (least recently used first). */
const recent = new Recent<PackedListPreview>(16);

/**
 * The list's first screen for the URL's list state (see lib/webhooks/list-preview.ts), cut from
 * the lists with the same code the browser runs; the same state of the lists and the same URL
 * reuse the last one. Undefined without lists, for states that need the linter's findings, or
 * when anything fails (the browser then shows the rows once the seed is read).
 */
export function webhookListPreview(
  lists: WebhookLists | undefined,
  search: Record<string, string | string[] | undefined>,
): PackedListPreview | undefined {
  if (!lists) return undefined;
  try {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(search)) if (typeof v === "string") q.set(k, v);
    const state = parseListState(q);
    if (!previewable(state)) return undefined;
    const key = `${seedStateKey(lists)}\u0000${q.toString()}`;
    return recent.get(key, () => {
      // Rows and counts in the order the page lists the kinds (what the browser will show).
      const served = servedHookKinds(lists.overview.apis).flatMap((k) =>
        k.readAt ? [{ kind: k.known.kind, resource: k.known.resource, ref: k.readAt }] : [],
      );
      const items = served.map(
        (k) => (lists.collections[refToString(k.ref)]?.items ?? []) as ConfigLike[],
      );
      const rows = served.flatMap((k, i) => hookRows(items[i] ?? [], k.resource));
      const kinds = served.map((k, i) => [k.kind, items[i]?.length ?? 0] as const);
      return listPreview(rows, state, kinds, FIRST_SCREEN_ROWS);
    });
  } catch {
    return undefined;
  }
}
