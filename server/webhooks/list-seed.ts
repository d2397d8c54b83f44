import "server-only";
import { servedHookKinds } from "@/lib/webhooks/hook-kinds";
import type { ConfigLike } from "@/lib/webhooks/summary";
import { collectionsSeed, type CollectionsSeed } from "@/server/kube/collections-seed";

/** What the webhook list needs for its first render (see collections-seed.ts). */
export type WebhookListSeed = CollectionsSeed<ConfigLike>;

/** The webhook list's seed: every served webhook configuration kind. */
export function webhookListSeed(): Promise<WebhookListSeed | undefined> {
  return collectionsSeed<ConfigLike>((apis) =>
    servedHookKinds(apis).flatMap((k) => (k.readAt ? [k.readAt] : [])),
  );
}
