"use client";

import { useWebhookConfigs } from "@/components/webhooks/use-webhook-configs";
import { servedKinds, type ServedKind } from "@/lib/k8s/served-kinds";
import type { OverviewData } from "@/lib/queries/overview";

/** Only InitializerConfiguration, where discovery finds it served. */
function selectInitializers(apis: OverviewData["apis"]): ServedKind[] {
  return servedKinds(apis).filter((k) => k.readAt && k.known.kind === "InitializerConfiguration");
}

/** The served InitializerConfigurations, kept live from the watch stream. */
export function useInitializerConfigs() {
  return useWebhookConfigs(undefined, selectInitializers);
}
