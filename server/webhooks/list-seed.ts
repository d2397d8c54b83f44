import "server-only";
import { servedHookKinds } from "@/lib/webhooks/hook-kinds";
import type { ConfigLike } from "@/lib/webhooks/summary";
import type { WebhookListSeed } from "@/lib/queries/webhooks";
import { collectionsSeed } from "@/server/kube/collections-seed";

export type { WebhookListSeed } from "@/lib/queries/webhooks";

/** The webhook list's seed: every served webhook configuration kind (see collections-seed.ts). */
export async function webhookListSeed(): Promise<WebhookListSeed | undefined> {
  const seed = await collectionsSeed<ConfigLike>((apis) =>
    servedHookKinds(apis).flatMap((k) => (k.readAt ? [k.readAt] : [])),
  );
  if (!seed) return undefined;
  return {
    context: seed.context,
    overview: seed.overview,
    collections: JSON.stringify(seed.collections),
  };
}
