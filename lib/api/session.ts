/** /api/session: shared mode's sign-in (a bearer token, or through the OIDC issuer) and sign-out. */
import { z } from "zod";
import { tokenSignInBody } from "@/lib/auth/sign-in-body";
import { route } from "./contract";

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

/** The answer to starting an OIDC sign-in (POST /api/session/oidc): where to send the browser. */
export interface OidcStart {
  authorizationUrl: string;
}

/** What the issuer's redirect to /sign-in/oidc carried. */
const oidcCallbackParams = z
  .object({
    state: z.string().min(1).max(512),
    code: z.string().min(1).max(4096).optional(),
    error: z.string().max(512).optional(),
    errorDescription: z.string().max(2048).optional(),
  })
  .strict();
export type OidcCallbackParams = z.input<typeof oidcCallbackParams>;

export const sessionRoute = route<SessionInfo>()({ method: "GET", path: "/api/session" });

/** Signs in with a bearer token (the server keeps it; the page never sees it again). */
export const signInRoute = route<SessionInfo>()({
  method: "POST",
  path: "/api/session",
  input: tokenSignInBody,
});

export const signOutRoute = route<{ signedOut: true }>()({
  method: "DELETE",
  path: "/api/session",
});

export const startOidcRoute = route<OidcStart>()({ method: "POST", path: "/api/session/oidc" });

export const oidcCallbackRoute = route<SessionInfo>()({
  method: "POST",
  path: "/api/session/oidc/callback",
  input: oidcCallbackParams,
});
