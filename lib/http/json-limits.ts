/**
 * Limits on the JSON the dashboard accepts, checked over the raw text before it is parsed. Pure.
 *
 * Nesting: the apiserver's own JSON decoder stops at 10,000 levels, but the dashboard cannot go
 * that deep: Node's JSON.stringify and structuredClone overflow the stack near 5,000 levels, and
 * the dashboard's own walkers (zod, diffs, YAML) recurse over objects too. A body nested deeper
 * than MAX_JSON_DEPTH is refused with 400 before JSON.parse sees it: the same limit the YAML
 * reader applies to a document (lib/admission/validate/source-map.ts), and no Kubernetes object
 * comes near it.
 */

/** The apiserver refuses request bodies over 3 MiB; the dashboard's API does the same. */
export const MAX_API_BODY_BYTES = 3 * 1024 * 1024;

/** A sign-in body holds a token, or an OIDC code and state: far less than this. */
export const MAX_SIGN_IN_BODY_BYTES = 64 * 1024;

/** Sign-in routes: reached before a session exists, so their bodies are the strangers'. */
const SIGN_IN_PATHS: ReadonlySet<string> = new Set([
  "/api/session",
  "/api/session/oidc",
  "/api/session/oidc/callback",
]);

/** The audit sink's batches (server/audit/sink.ts): the apiserver's batches are far smaller. */
export const MAX_AUDIT_BODY_BYTES = 16 * 1024 * 1024;

/**
 * The most bytes any request to `pathname` may carry, as the front door (scripts/start.mjs with
 * server/http/front-door.ts) counts them before the server reads a body: a sign-in body is a
 * stranger's and small, an audit batch up to MAX_AUDIT_BODY_BYTES, anything else (every other
 * API route, and a page, which takes no body at all) as much as the apiserver takes.
 */
export function requestBodyLimit(pathname: string): number {
  if (pathname === "/api/audit") return MAX_AUDIT_BODY_BYTES;
  return SIGN_IN_PATHS.has(pathname) ? MAX_SIGN_IN_BODY_BYTES : MAX_API_BODY_BYTES;
}

/**
 * Bodies the front door lets through without waiting: declared at most this large (or, sent
 * without a length, to a route whose limit is at most this). A larger body waits for one of
 * LARGE_BODIES_AT_ONCE places, so the bytes being read into the server at once stay bounded
 * and a GET (health, a page) never queues behind them.
 */
export const SMALL_BODY_BYTES = 64 * 1024;

/** How many large bodies the server reads at once (each until its response ends). */
export const LARGE_BODIES_AT_ONCE = 1;

/** How many large bodies may wait for a place; one more is refused (503) without being read. */
export const LARGE_BODIES_WAITING = 64;

/**
 * The most bytes an API request to `pathname` may declare (Content-Length) before anything
 * reads it, or undefined when the route sets its own limit (the audit sink, which authenticates
 * the apiserver first and takes batches up to 16 MiB). The proxy refuses a larger declaration
 * with 413 at once; a body sent without a length is cut off at the same limit as it is read
 * (server/http/body.ts).
 */
export function declaredBodyLimit(pathname: string): number | undefined {
  if (!pathname.startsWith("/api/") || pathname === "/api/audit") return undefined;
  return requestBodyLimit(pathname);
}

/** The deepest nesting (objects and arrays) a JSON body may have. */
export const MAX_JSON_DEPTH = 512;

/**
 * Whether `text`, read as JSON, nests objects and arrays deeper than `max`. One pass over the
 * characters with no recursion (strings, with their escapes, skipped), so it costs the same
 * however hostile the text: it stops at the first level past `max`. Exact for valid JSON; for
 * text that is not JSON the answer does not matter, JSON.parse refuses it.
 */
export function jsonNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** The 400 message for a body nested past the limit (the same words on every route). */
export function tooDeepMessage(max: number): string {
  return `request body nests objects and arrays more than ${max} levels deep (the dashboard's limit)`;
}
