/**
 * Headers on every response (set by proxy.ts). The Content-Security-Policy admits the dashboard's
 * own scripts — the ones Next renders carry the request's nonce, and what they load is trusted
 * through 'strict-dynamic' — Monaco's bundled workers, and nothing from another origin. No page
 * may be framed. Pure.
 */

/** The Content-Security-Policy for one response. `dev` adds what `next dev` needs (eval). */
export function contentSecurityPolicy(nonce: string, dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    // Monaco and React set style attributes and inject <style> elements at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export const SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ["x-frame-options", "DENY"],
  ["x-content-type-options", "nosniff"],
  ["referrer-policy", "no-referrer"],
  ["cross-origin-opener-policy", "same-origin"],
  ["cross-origin-resource-policy", "same-origin"],
];
