import { queryOptions } from "@tanstack/react-query";
import { apiFetch } from "./fetch";
import { queryKeys } from "./keys";

export interface ContextSummary {
  name: string;
  cluster: string;
  server: string;
  user: string;
  namespace?: string;
}

export interface ContextsData {
  current: string;
  contexts: ContextSummary[];
}

export const contextsQuery = () =>
  queryOptions({
    queryKey: queryKeys.contexts(),
    queryFn: ({ signal }) => apiFetch<ContextsData>("/api/contexts", { signal }),
    staleTime: Infinity,
  });

/** Switches the browser's identity to another kubeconfig context. */
export function selectContext(context: string): Promise<{ current: string }> {
  return apiFetch("/api/contexts", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ context }),
  });
}
