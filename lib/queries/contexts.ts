import { queryOptions } from "@tanstack/react-query";
import { apiFetch } from "./fetch";
import { queryKeys } from "./keys";

/** A kubeconfig context as the dashboard shows it (GET /api/contexts; server/kube/config.ts). */
export interface ContextSummary {
  name: string;
  cluster: string;
  server: string;
  user: string;
  namespace?: string;
}

export interface ContextsData {
  /** Where a new tab starts (the remembered choice, else the default). */
  start: string;
  contexts: ContextSummary[];
}

export const contextsQuery = () =>
  queryOptions({
    queryKey: queryKeys.contexts(),
    queryFn: ({ signal }) => apiFetch<ContextsData>("/api/contexts", { signal }),
    staleTime: Infinity,
  });

/** Remembers `context` as where new tabs start; it does not change any open tab. */
export function rememberContext(context: string): Promise<{ start: string }> {
  return apiFetch("/api/contexts", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ context }),
  });
}
