"use client";

import { useQuery } from "@tanstack/react-query";
import { policyParamsQuery } from "@/lib/queries/policies";
import type { KindCollection } from "@/components/webhooks/use-webhook-configs";

/** The params report for the collections as they are now (read again when any of them changes). */
export function usePolicyParams(context: string | undefined, kinds: KindCollection[]) {
  const at = kinds.map((k) => `${k.resource}@${k.resourceVersion ?? ""}`).join(",");
  return useQuery({
    ...policyParamsQuery(context ?? "", at),
    enabled: !!context && kinds.length > 0 && kinds.every((k) => k.items !== undefined),
  });
}
