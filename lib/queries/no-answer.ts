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
  return askAgainAfterMs(errorUpdateCount);
}

/**
 * The refetch interval of a query of live state that nothing watches (a backend's endpoints,
 * parameter objects, the state a prediction is made from): read again every `ms` while shown,
 * and as refetchWhileNoAnswer (sooner) while the cluster does not answer.
 */
export function rereadEvery(ms: number): (query: Pick<Query, "state">) => number {
  return (query) => refetchWhileNoAnswer(query) || ms;
}

/**
 * How long to wait before asking again after `failures` failures in a row (1, 2, …): 2 s, then
 * twice as long each time, at most 30 s. Queries that got no answer and event streams the
 * browser gave up on wait this long.
 */
export function askAgainAfterMs(failures: number): number {
  return Math.min(2000 * 2 ** Math.max(0, failures - 1), 30_000);
}
