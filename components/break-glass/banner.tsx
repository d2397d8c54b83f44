"use client";

import { useEffect } from "react";
import { usePathname } from "next/navigation";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { streamUrl } from "@/lib/api/client";
import { breakGlassStreamRoute } from "@/lib/api/break-glass";
import { followBreakGlass } from "@/lib/queries/break-glass-stream";
import { browserTabSharing, shareAcrossTabs } from "@/lib/queries/share-across-tabs";
import { useTabContext } from "@/components/layout/tab-context";
import { breakGlassListQuery } from "@/lib/queries/break-glass";
import { ActiveEpisode, KeptEpisode } from "./episode";
import { useServerNow } from "./time-left";

/**
 * Reads the episodes again each time the break-glass stream says they changed, and on each
 * (re)connection: every tab sees a break-glass start or end at once, without polling. One tab
 * per browser profile and context holds the stream and relays it to the others
 * (share-across-tabs.ts), so it takes one of the browser's few connections to the host, not one
 * per tab.
 */
function useBreakGlassStream(context: string | undefined, enabled: boolean) {
  const qc = useQueryClient();
  useEffect(() => {
    if (!context || !enabled) return;
    return shareAcrossTabs({
      name: `portcullis:break-glass-stream:${context}`,
      ...browserTabSharing(),
      follow: (handlers) =>
        followBreakGlass({
          open: () => new EventSource(streamUrl(breakGlassStreamRoute, {}, context)),
          ...handlers,
        }),
      onChange: () => void qc.invalidateQueries({ queryKey: ["break-glass"] }),
    });
  }, [context, enabled, qc]);
}

/**
 * On every page while any break-glass is active (or one ended with fields to answer for): what
 * is let through, by whom and why, the time left, and the one-click early revert.
 */
export function BreakGlassBanner({ shared = false }: { shared?: boolean }) {
  const pathname = usePathname();
  const signingIn = shared && (pathname === "/sign-in" || pathname.startsWith("/sign-in/"));
  const { context } = useTabContext();
  const list = useQuery({
    ...breakGlassListQuery(context ?? ""),
    enabled: context !== undefined && !signingIn,
  });
  useBreakGlassStream(context, !signingIn);
  const now = useServerNow(list.data?.now, list.dataUpdatedAt);
  const active = list.data?.active ?? [];
  const kept = list.data?.kept ?? [];
  if (active.length === 0 && kept.length === 0) return null;
  return (
    <div className="break-glass-banner" role="status" data-testid="break-glass-banner">
      {active.map((e) => (
        <ActiveEpisode key={e.id} episode={e} now={now} />
      ))}
      {kept.map((e) => (
        <KeptEpisode key={e.id} episode={e} />
      ))}
    </div>
  );
}
