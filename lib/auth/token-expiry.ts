/**
 * When a bearer token stops being accepted, if it says so itself: the `exp` claim of a token that
 * is a JWT (service-account tokens from a TokenRequest, OIDC ID tokens). Read only after the
 * apiserver has accepted the token, so the claim is the apiserver's to enforce, not ours to
 * verify; a session made with the token ends with it, also in impersonation mode, where the token
 * is not kept and the apiserver never sees it again. Opaque tokens say nothing: undefined. Pure.
 */
import { decodeJwt } from "./oidc";

export function bearerTokenExpiry(token: string): number | undefined {
  let payload: Record<string, unknown>;
  try {
    payload = decodeJwt(token).payload;
  } catch {
    return undefined;
  }
  const exp = payload.exp;
  return typeof exp === "number" && Number.isFinite(exp) && exp > 0 ? exp * 1000 : undefined;
}
