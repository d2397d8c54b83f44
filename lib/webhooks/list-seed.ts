/**
 * The webhook list's first render, read on the server (server/webhooks/list-seed.ts) and filled
 * into the browser's query cache. Pure.
 */
import type { CollectionData } from "@/lib/api/kube-list";
import type { OverviewData } from "@/lib/api/overview";
import type { ConfigLike } from "./summary";

/**
 * What the server reads for the webhook list's first render (server/webhooks/list-seed.ts): whose
 * view it is and what the cluster serves, sent with the first screen of rows (small).
 */
export interface WebhookListSeedHead {
  context: string;
  overview: OverviewData;
}

/**
 * The served webhook configuration kinds' collections by refToString, items without
 * managedFields. They follow the first screen as one JSON text: one string is cheap to carry in
 * the page's payload and is parsed in the browser once a frame has painted, where an object tree
 * of thousands of hooks would cost the payload's per-value decoding before hydration.
 */
export type WebhookListSeedCollections = Record<string, CollectionData<ConfigLike>>;

/** The whole seed, once its collections are in: the query cache's first fill (initialData). */
export interface WebhookListSeed extends WebhookListSeedHead {
  collections: WebhookListSeedCollections;
}

/** The seed's collections from their JSON text (once per seed: callers memoise). */
export function parseSeedCollections(json: string): WebhookListSeedCollections {
  return JSON.parse(json) as WebhookListSeedCollections;
}
