import "server-only";
import { setMaxListeners } from "node:events";
import { headers } from "next/headers";
import { collectionPath, refToString } from "@/lib/k8s/resources";
import { servedHookKinds } from "@/lib/webhooks/hook-kinds";
import type { OverviewData } from "@/lib/queries/overview";
import type { CollectionData } from "@/lib/queries/collections";
import type { ConfigLike } from "@/lib/webhooks/summary";
import { startingContext } from "@/server/kube/identity";
import { kubeClientFor } from "@/server/kube/client";
import { admissionApis, serverVersion } from "@/server/kube/discovery";
import { watchHub } from "@/server/kube/watch-hub";

/**
 * What the webhook list needs for its first render, read on the server while the page streams,
 * so the browser paints hook rows from the HTML instead of waiting for its JavaScript and then
 * three dependent round trips (contexts → discovery → lists). Collections come from the watch
 * hub, so the live stream the browser opens next starts from the same resourceVersion and its
 * first SYNC changes nothing.
 */
export interface WebhookListSeed {
  context: string;
  overview: OverviewData;
  /** By refToString of the collection. */
  collections: Record<string, CollectionData<ConfigLike>>;
}

/** Past this the page renders without a seed and the browser reads the cluster itself. */
const BUDGET_MS = 2_000;

/**
 * The seed for the request's identity, or undefined when anything fails or takes too long
 * (the browser then reads the cluster and reports errors as before).
 */
export async function webhookListSeed(): Promise<WebhookListSeed | undefined> {
  const abort = new AbortController();
  // One signal for discovery and every list read in parallel: more than the default ten listeners.
  setMaxListeners(32, abort.signal);
  const timer = setTimeout(() => abort.abort(), BUDGET_MS);
  try {
    const context = startingContext(await headers());
    const client = kubeClientFor(context);
    const { signal } = abort;
    const [version, apis] = await Promise.all([
      serverVersion(client, signal),
      admissionApis(client, signal),
    ]);
    const overview: OverviewData = { context, server: client.server, version, apis };
    const refs = servedHookKinds(apis).flatMap((k) => (k.readAt ? [k.readAt] : []));
    // From the watch hub: the browser's live stream then opens on this same snapshot.
    const lists = await Promise.all(
      refs.map((ref) => watchHub().current(context, collectionPath(ref), signal)),
    );
    const collections: Record<string, CollectionData<ConfigLike>> = {};
    refs.forEach((ref, i) => {
      const list = lists[i];
      if (!list) return;
      // managedFields are server bookkeeping no list view reads, and ~40% of the bytes; the
      // watch stream's first SYNC brings the whole objects right after.
      const items = list.items.map((item) => {
        const metadata = item.metadata as Record<string, unknown> | undefined;
        if (!metadata || !("managedFields" in metadata)) return item;
        const { managedFields: _dropped, ...rest } = metadata;
        return { ...item, metadata: rest };
      });
      collections[refToString(ref)] = {
        resourceVersion: list.resourceVersion,
        items: items as ConfigLike[],
      };
    });
    return { context, overview, collections };
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
