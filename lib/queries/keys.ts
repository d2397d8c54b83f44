/**
 * Query keys: one factory per resource, each key carrying every input its query reads
 * (the context first, so switching identity never mixes data).
 */
import type { ResourceRef } from "@/lib/k8s/resources";

export const queryKeys = {
  contexts: () => ["contexts"] as const,
  overview: (context: string) => ["overview", context] as const,
  collection: (context: string, r: ResourceRef) =>
    ["k8s", context, r.group, r.version, r.resource, "list"] as const,
};
