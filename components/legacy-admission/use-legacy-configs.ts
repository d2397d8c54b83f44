"use client";

import { useWebhookConfigs } from "@/components/webhooks/use-webhook-configs";
import { servedKinds, type ServedKind } from "@/lib/k8s/served-kinds";
import type { OverviewData } from "@/lib/queries/overview";

function selectKind(kind: string) {
  return (apis: OverviewData["apis"]): ServedKind[] =>
    servedKinds(apis).filter((k) => k.readAt && k.known.kind === kind);
}

const selectInitializers = selectKind("InitializerConfiguration");
const selectExternalHooks = selectKind("ExternalAdmissionHookConfiguration");

/** The served InitializerConfigurations, kept live from the watch stream. */
export function useInitializerConfigs() {
  return useWebhookConfigs(undefined, selectInitializers);
}

/** The served ExternalAdmissionHookConfigurations, kept live from the watch stream. */
export function useExternalHookConfigs() {
  return useWebhookConfigs(undefined, selectExternalHooks);
}
