"use client";

import { useMemo } from "react";
import { useQuery } from "@tanstack/react-query";
import { backendServicesKey, lintStateQuery, lintStateToUse } from "@/lib/queries/webhooks";
import type { LintStateData } from "@/lib/api/webhooks";
import type { ConfigLike } from "@/lib/webhooks/summary";

/**
 * The live state the webhook pages lint with, read for the backend Services the configurations
 * call now (see lintStateQuery): `data` is undefined until read (the offline checks run
 * meanwhile), and goes without its backend part while the answer shown was read for other
 * Services.
 */
export function useLintState(
  context: string | undefined,
  mutating: readonly ConfigLike[] | undefined,
  validating: readonly ConfigLike[] | undefined,
  enabled: boolean,
): { data: LintStateData | undefined; error: Error | null } {
  const services = useMemo(() => backendServicesKey(mutating, validating), [mutating, validating]);
  const query = useQuery({
    ...lintStateQuery(context ?? "", services),
    enabled: enabled && !!context && (mutating !== undefined || validating !== undefined),
  });
  const data = useMemo(
    () => lintStateToUse(query.data, query.isPlaceholderData),
    [query.data, query.isPlaceholderData],
  );
  return { data, error: query.error };
}
