import { queryOptions } from "@tanstack/react-query";
import { callApi } from "@/lib/api/client";
import {
  oidcCallbackRoute,
  sessionRoute,
  signInRoute,
  signOutRoute,
  startOidcRoute,
  type OidcCallbackParams,
  type OidcStart,
  type SessionInfo,
} from "@/lib/api/session";
import { queryKeys } from "./keys";

/** Signs in with a bearer token (the server keeps it; the page never sees it again). */
export function signIn(token: string): Promise<SessionInfo> {
  return callApi(signInRoute, { input: { token } });
}

/** Starts an OIDC sign-in; the server sets the flow cookie and names the issuer's page. */
export function startOidcSignIn(): Promise<OidcStart> {
  return callApi(startOidcRoute);
}

/** Completes an OIDC sign-in with the issuer's answer (POST /api/session/oidc/callback). */
export function completeOidcSignIn(params: OidcCallbackParams): Promise<SessionInfo> {
  return callApi(oidcCallbackRoute, { input: params });
}

/** Ends this browser's session. */
export function signOut(): Promise<{ signedOut: true }> {
  return callApi(signOutRoute);
}

export const sessionQuery = () =>
  queryOptions({
    queryKey: queryKeys.session(),
    queryFn: ({ signal }) => callApi(sessionRoute, { signal }),
    staleTime: 60_000,
  });
