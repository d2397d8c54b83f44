"use client";

import { useWebhookConfigs } from "@/components/webhooks/use-webhook-configs";
import { servedKinds, type ServedKind } from "@/lib/k8s/served-kinds";
import type { OverviewData } from "@/lib/api/overview";
import { servedV1beta1HookKinds } from "@/lib/k8s/v1beta1-hooks";

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

/** The served v1beta1 webhook configurations (mutating, then validating), kept live. */
export function useV1beta1HookConfigs() {
  return useWebhookConfigs(undefined, servedV1beta1HookKinds);
}
