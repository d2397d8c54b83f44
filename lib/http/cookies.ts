/**
 * The cookie that remembers which kubeconfig context a new tab starts in. It only chooses a
 * starting point: every API request names its context itself. Pure.
 */

/** The cookie's name: `__Host-` prefixed (host-only, Secure, Path=/) when served over TLS. */
function contextCookieName(secure: boolean): string {
  return secure ? "__Host-portcullis-context" : "portcullis-context";
}

const NAMES = [contextCookieName(true), contextCookieName(false)];

/**
 * The value of the first cookie of `names` in a Cookie header. Malformed values (bad
 * percent-encoding, over 1 KiB) are ignored, never thrown.
 */
export function readCookie(header: string | null, names: readonly string[]): string | undefined {
  if (!header || header.length > 16_384) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim();
    if (!names.includes(name)) continue;
    const raw = part.slice(eq + 1).trim();
    if (raw.length > 1024) continue;
    try {
      return decodeURIComponent(raw);
    } catch {
      continue;
    }
  }
  return undefined;
}

/** The context cookie's value, if any and well-formed. */
export function contextCookie(header: string | null): string | undefined {
  return readCookie(header, NAMES);
}

/** A Set-Cookie value remembering `context` for new tabs. */
export function contextCookieHeader(context: string, secure: boolean): string {
  const attrs = ["Path=/", "SameSite=Strict", "HttpOnly", "Max-Age=31536000"];
  if (secure) attrs.push("Secure");
  return `${contextCookieName(secure)}=${encodeURIComponent(context)}; ${attrs.join("; ")}`;
}
