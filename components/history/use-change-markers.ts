"use client";

import { useQuery } from "@tanstack/react-query";
import { callApi } from "@/lib/api/client";
import { historyRecentRoute } from "@/lib/api/history";
import type { HistoryKind } from "@/lib/admission/history/kinds";
import { actorText } from "@/lib/admission/history/timeline";
import { clockMinute } from "@/lib/clock";

/**
 * The recent changes of one configuration as markers for a chart (the health card's latency
 * line): its last 100 writes, each with when and who. Empty while unread or not readable.
 */
export function useChangeMarkers(
  context: string,
  kind: HistoryKind | undefined,
  name: string,
): Array<{ id: number; time: number; title: string }> {
  const q = useQuery({
    queryKey: ["history", context, "markers", kind ?? "", name],
    queryFn: ({ signal }) =>
      callApi(historyRecentRoute, { input: { limit: 100, kind, name }, signal }),
    enabled: !!context && !!kind && name !== "",
    retry: false,
  });
  return (q.data?.items ?? [])
    .filter((c) => c.name === name)
    .map((c) => ({
      id: c.id,
      time: c.time,
      title: `${clockMinute(c.time)}: ${c.operation} by ${actorText(c)}`,
    }));
}
