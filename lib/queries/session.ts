import { queryOptions } from "@tanstack/react-query";
import { apiFetch } from "./fetch";
import { queryKeys } from "./keys";

/** Who the shared-mode session acts as (GET /api/session; POST answers the same on sign-in). */
export interface SessionInfo {
  username: string;
  groups: string[];
  /** How the dashboard calls the apiserver for this user. */
  via: "token" | "impersonation";
  /** How the user signed in: a pasted bearer token, or through the OIDC issuer. */
  signedInWith: "token" | "oidc";
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

/** The answer to starting an OIDC sign-in (POST /api/session/oidc): where to send the browser. */
export interface OidcStart {
  authorizationUrl: string;
}

/** Starts an OIDC sign-in; the server sets the flow cookie and names the issuer's page. */
export function startOidcSignIn(): Promise<OidcStart> {
  return apiFetch<OidcStart>("/api/session/oidc", { method: "POST" });
}

/** What the issuer's redirect to /sign-in/oidc carried. */
export interface OidcCallbackParams {
  state: string;
  code?: string;
  error?: string;
  errorDescription?: string;
}

/** Completes an OIDC sign-in with the issuer's answer (POST /api/session/oidc/callback). */
export function completeOidcSignIn(params: OidcCallbackParams): Promise<SessionInfo> {
  return apiFetch<SessionInfo>("/api/session/oidc/callback", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(params),
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
