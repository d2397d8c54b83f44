/**
 * Cross-site request refusal for the dashboard API. The dashboard acts with cluster credentials,
 * so a page on another site must not be able to make a browser send it a write. Pure.
 */

export interface RequestFacts {
  method: string;
  /** The URL the request was sent to (its origin is the dashboard's). */
  url: string;
  origin: string | null;
  secFetchSite: string | null;
  /** The Host header, when the server sits behind a proxy that keeps it. */
  host: string | null;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * True when a state-changing request comes from another site. Browsers send Sec-Fetch-Site (and
 * Origin on cross-origin writes); clients that send neither — kubectl-style tools, the CLI,
 * scripts — are not browsers a third-party page can drive, so they pass.
 */
export function isCrossSiteWrite(r: RequestFacts): boolean {
  if (SAFE_METHODS.has(r.method.toUpperCase())) return false;
  if (r.secFetchSite) return r.secFetchSite !== "same-origin" && r.secFetchSite !== "none";
  if (!r.origin) return false;
  let origin: URL;
  try {
    origin = new URL(r.origin);
  } catch {
    return true;
  }
  const own = new URL(r.url);
  return origin.host !== (r.host ?? own.host);
}
