import { queryOptions } from "@tanstack/react-query";
import { apiFetch } from "./fetch";
import { queryKeys } from "./keys";

/** Who the shared-mode session acts as (GET /api/session; POST answers the same on sign-in). */
export interface SessionInfo {
  username: string;
  groups: string[];
  /** How the dashboard calls the apiserver for this user. */
  via: "token" | "impersonation";
  /** When the session ends at the latest (epoch ms); absent right after sign-in. */
  expires?: number;
}

/** Signs in with a bearer token (the server keeps it; the page never sees it again). */
export function signIn(token: string): Promise<SessionInfo> {
  return apiFetch<SessionInfo>("/api/session", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token }),
  });
}

/** Ends this browser's session. */
export function signOut(): Promise<{ signedOut: true }> {
  return apiFetch("/api/session", { method: "DELETE" });
}

export const sessionQuery = () =>
  queryOptions({
    queryKey: queryKeys.session(),
    queryFn: ({ signal }) => apiFetch<SessionInfo>("/api/session", { signal }),
    staleTime: 60_000,
  });
