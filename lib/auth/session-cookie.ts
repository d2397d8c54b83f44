/**
 * The shared-mode session cookie. It carries only a random session id with its signature; the
 * user's token stays on the server. `__Host-` binds it to this host, path / and Secure (browsers
 * also accept Secure cookies on loopback http, which is how tests reach a local process);
 * SameSite=Strict keeps it off every cross-site request. Pure.
 */
import { readCookie } from "@/lib/http/cookies";

export const SESSION_COOKIE = "__Host-portcullis-session";

/** The reason of a shared-mode 401 for a request without a live session (the pages then sign in). */
export const SESSION_REQUIRED = "SessionRequired";
/** The reason of a refused sign-in: the apiserver does not know the token. */
export const INVALID_TOKEN = "InvalidToken";
/** The reason of a refused sign-in: the dashboard's service account may not impersonate the user. */
export const IMPERSONATION_REFUSED = "ImpersonationRefused";

/** A session lives at most this long after sign-in. */
export const SESSION_MAX_AGE_MS = 8 * 3_600_000;
/** A session unused for this long is over. */
export const SESSION_IDLE_MS = 30 * 60_000;

/** The session cookie's value in a Cookie header, if present and of a plausible size. */
export function sessionCookie(header: string | null): string | undefined {
  const v = readCookie(header, [SESSION_COOKIE]);
  return v && v.length <= 200 ? v : undefined;
}

/** Set-Cookie for a new session (`value` is the signed id, already URL-safe). */
export function sessionCookieHeader(value: string, maxAgeMs: number = SESSION_MAX_AGE_MS): string {
  const maxAge = Math.max(0, Math.floor(maxAgeMs / 1000));
  return `${SESSION_COOKIE}=${value}; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=${maxAge}`;
}

/** Set-Cookie that deletes the session cookie (sign-out). */
export function clearSessionCookieHeader(): string {
  return `${SESSION_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0`;
}

/**
 * An OIDC sign-in in progress: its state, nonce and PKCE verifier, sealed (AES-GCM with the
 * session secret) into this cookie by the server. SameSite=Lax, not Strict: the issuer sends the
 * browser back with a top-level navigation from another site.
 */
export const OIDC_FLOW_COOKIE = "__Host-portcullis-oidc";
/** How long an OIDC sign-in may take from start to callback. */
export const OIDC_FLOW_MAX_AGE_MS = 10 * 60_000;

/** The OIDC flow cookie's value in a Cookie header, if present and of a plausible size. */
export function oidcFlowCookie(header: string | null): string | undefined {
  const v = readCookie(header, [OIDC_FLOW_COOKIE]);
  return v && v.length <= 1000 ? v : undefined;
}

/** Set-Cookie for a new OIDC flow (`value` is the sealed flow, already URL-safe). */
export function oidcFlowCookieHeader(value: string): string {
  const maxAge = Math.floor(OIDC_FLOW_MAX_AGE_MS / 1000);
  return `${OIDC_FLOW_COOKIE}=${value}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=${maxAge}`;
}

/** Set-Cookie that deletes the OIDC flow cookie (it is used once). */
export function clearOidcFlowCookieHeader(): string {
  return `${OIDC_FLOW_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0`;
}
