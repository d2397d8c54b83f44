import type { Query } from "@tanstack/react-query";
import { isNoAnswer, KubeApiError } from "@/lib/k8s/errors";

/**
 * The refetch interval of every query (the QueryClient's default): a query whose last fetch
 * failed because the cluster (or the dashboard) did not answer is asked again — after 2 s, then
 * twice as long each time it fails again, at most every 30 s — so a page opened during an outage
 * fills in by itself once the cluster answers, its error shown meanwhile. Any other outcome:
 * no refetch (live pages are kept current by their event streams).
 */
export function refetchWhileNoAnswer(query: Pick<Query, "state">): number | false {
  const { status, error, errorUpdateCount } = query.state;
  if (status !== "error" || !(error instanceof KubeApiError) || !isNoAnswer(error)) return false;
  return Math.min(2000 * 2 ** Math.max(0, errorUpdateCount - 1), 30_000);
}
