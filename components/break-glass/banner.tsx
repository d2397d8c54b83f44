"use client";

import { usePathname } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { useTabContext } from "@/components/layout/tab-context";
import { breakGlassListQuery } from "@/lib/queries/break-glass";
import { ActiveEpisode, KeptEpisode } from "./episode";
import { useServerNow } from "./time-left";

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
