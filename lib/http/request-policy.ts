/**
 * The dashboard's one request policy, applied by proxy.ts to every page, API route and stream
 * before any handler runs. Portcullis acts with cluster credentials, so a request is served only
 * when all of these hold:
 * - its path is well-formed (every %-escape valid UTF-8), else 400;
 * - its Host is one the dashboard answers to: the loopback names on the port it serves, plus
 *   names the operator configures (PORTCULLIS_ALLOWED_HOSTS). Without this, a page on any site
 *   that rebinds its DNS name to 127.0.0.1 would be "same-origin" with the dashboard;
 * - a call to /api (read or write) comes from the dashboard's own pages, by Fetch Metadata
 *   (`Sec-Fetch-Site: same-origin`, and an Origin, when sent, on the allowlist). Callers that are
 *   not browsers are let in only on the routes meant for them (MACHINE_ROUTES);
 * - a state-changing request anywhere else is same-origin too;
 * - in shared mode, a request carries a signed session cookie, except on the few routes that are reached
 *   before signing in (SESSIONLESS_ROUTES, the machine routes) and the sign-in page's own files.
 *   An API call without one gets 401; a page load is sent to /sign-in. (The cookie is verified,
 *   and the session looked up, where the identity is resolved: server/kube/identity.ts.)
 * Pure: the proxy gathers the facts, this decides.
 */
import { dashboardMode, type DashboardMode } from "@/lib/auth/mode";
import { SESSION_REQUIRED } from "@/lib/auth/session-cookie";

export interface PolicyConfig {
  /** Lower-case `name:port` entries, and bare `name` entries that allow every port. */
  allowedHosts: ReadonlySet<string>;
  /** The port the dashboard serves; loopback names are allowed on it only. Unknown: any port. */
  port: string | undefined;
  /** local (default) or shared (sign-in required). */
  mode?: DashboardMode;
}

export interface RequestFacts {
  method: string;
  pathname: string;
  host: string | null;
  origin: string | null;
  secFetchSite: string | null;
  /** Whether the request carries a validly signed session cookie (shared mode). */
  hasSession?: boolean;
}

export type PolicyDecision =
  | { allow: true; route: "page" | "api" | "machine" }
  | {
      allow: false;
      status: 400 | 401 | 403 | 421;
      reason: string;
      message: string;
      /** For a page load: where to send the browser instead (shared mode's sign-in page). */
      redirect?: string;
    };

/** Routes that callers other than the dashboard's pages are meant to use, and why. */
export const MACHINE_ROUTES: ReadonlyArray<{ method: string; path: string; caller: string }> = [
  {
    method: "POST",
    path: "/api/audit",
    caller: "the apiserver's audit webhook backend (authenticated by its bearer token)",
  },
  { method: "GET", path: "/api/health", caller: "liveness probes and the test harness" },
  { method: "HEAD", path: "/api/health", caller: "liveness probes" },
];

/** Shared mode: API routes served without a session (besides the machine routes), and why. */
export const SESSIONLESS_ROUTES: ReadonlyArray<{ method: string; path: string; why: string }> = [
  { method: "POST", path: "/api/session", why: "signing in: it creates the session" },
  {
    method: "POST",
    path: "/api/session/oidc",
    why: "starting an OIDC sign-in: it sets the sealed flow cookie and names the issuer's page",
  },
  {
    method: "POST",
    path: "/api/session/oidc/callback",
    why: "completing an OIDC sign-in: it checks the flow cookie and the ID token, then creates the session",
  },
];

/** Shared mode: paths a browser loads before signing in (the sign-in page and static files). */
const PUBLIC_PAGE_PREFIXES = [
  "/sign-in",
  "/_next/static/",
  "/favicon.",
  "/apple-touch-icon.png",
  "/manifest.webmanifest",
];

// Not a route, so not here: the OTLP trace receiver (server/traces/receiver.ts) is a separate
// HTTP/2 listener, started only when PORTCULLIS_OTLP_LISTEN names an address. The apiserver's
// exporter sends no credentials (plaintext OTLP/gRPC), so it cannot authenticate; it answers one
// gRPC method, acts with no cluster credentials, and only adds bounded latency samples to what
// the Health page shows — the README tells operators to keep it on a private address.

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"] as const;

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const HOST_SHAPE = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:[0-9]{1,5})?$/;

/** Splits a Host header into name and port (port "" when absent); undefined when malformed. */
function parseHost(host: string): { name: string; port: string } | undefined {
  const h = host.trim().toLowerCase();
  if (h.length > 300 || !HOST_SHAPE.test(h)) return undefined;
  const colon = h.lastIndexOf(":");
  if (colon > h.lastIndexOf("]") && colon !== -1) {
    return { name: h.slice(0, colon), port: h.slice(colon + 1) };
  }
  return { name: h, port: "" };
}

/** True when `host` (a Host header or an origin's host) is one the dashboard answers to. */
export function hostAllowed(host: string | null, config: PolicyConfig): boolean {
  if (!host) return false;
  const parsed = parseHost(host);
  if (!parsed) return false;
  const { name, port } = parsed;
  if ((LOOPBACK_NAMES as readonly string[]).includes(name)) {
    return config.port === undefined || config.port === (port || "80");
  }
  if (config.allowedHosts.has(name)) return true;
  // A Host (or an origin) names no port when it is its scheme's default, and the scheme is not
  // in a Host header: `name:443` (a browser on https://name/, as configured names must be
  // served) and `name:80` both stand for a port-less one.
  return (port ? [port] : ["80", "443"]).some((p) => config.allowedHosts.has(`${name}:${p}`));
}

/** The policy's configuration from the environment the server runs with. */
export function policyConfigFromEnv(env: Record<string, string | undefined>): PolicyConfig {
  const allowedHosts = new Set(
    (env.PORTCULLIS_ALLOWED_HOSTS ?? "")
      .split(",")
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );
  const port = env.PORTCULLIS_PORT || env.PORT || undefined;
  let mode: DashboardMode;
  try {
    mode = dashboardMode(env.PORTCULLIS_MODE);
  } catch {
    // A misspelt mode fails closed (scripts/start.mjs refuses to start with one anyway).
    mode = "shared";
  }
  return { allowedHosts, port: port && /^[0-9]{1,5}$/.test(port) ? port : undefined, mode };
}

function isMachineRoute(method: string, pathname: string): boolean {
  return MACHINE_ROUTES.some((r) => r.method === method && r.path === pathname);
}

function originHost(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

/**
 * Whether a path's %-escapes decode (as UTF-8): route parameters are decoded from them, and a
 * malformed one would otherwise fail inside the framework as a bare 500.
 */
function wellFormedPath(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

/** Decides whether the dashboard serves a request. */
export function decide(r: RequestFacts, config: PolicyConfig): PolicyDecision {
  const method = r.method.toUpperCase();
  if (!hostAllowed(r.host, config)) {
    return {
      allow: false,
      status: 421,
      reason: "HostNotAllowed",
      message: `the dashboard does not answer to the host name "${(r.host ?? "").slice(0, 100)}"; it serves the loopback names on its port and the names in PORTCULLIS_ALLOWED_HOSTS`,
    };
  }
  if (!wellFormedPath(r.pathname)) {
    return {
      allow: false,
      status: 400,
      reason: "BadRequest",
      message:
        "the URL path is malformed: a %-escape in it is not valid UTF-8 (names in paths are percent-encoded UTF-8)",
    };
  }
  const api = r.pathname === "/api" || r.pathname.startsWith("/api/");
  if (isMachineRoute(method, r.pathname)) return { allow: true, route: "machine" };
  // An Origin, when a browser sends one, must be the dashboard's own ("null" is not).
  if (r.origin !== null) {
    const host = originHost(r.origin);
    if (!host || !hostAllowed(host, config)) {
      return {
        allow: false,
        status: 403,
        reason: "CrossSiteRequest",
        message: "the dashboard refuses requests sent from another site",
      };
    }
  }
  if (api || !SAFE_METHODS.has(method)) {
    if (r.secFetchSite !== "same-origin") {
      return {
        allow: false,
        status: 403,
        reason: "CrossSiteRequest",
        message: r.secFetchSite
          ? "the dashboard refuses requests sent from another site"
          : "the dashboard's API answers only its own pages (a browser sending Sec-Fetch-Site: same-origin)",
      };
    }
  }
  if (config.mode === "shared" && !r.hasSession) {
    if (api && !SESSIONLESS_ROUTES.some((s) => s.method === method && s.path === r.pathname)) {
      return {
        allow: false,
        status: 401,
        reason: SESSION_REQUIRED,
        message: "sign in first: the dashboard acts only as a signed-in user",
      };
    }
    if (!api && !PUBLIC_PAGE_PREFIXES.some((p) => r.pathname.startsWith(p))) {
      return {
        allow: false,
        status: 401,
        reason: SESSION_REQUIRED,
        message: "sign in first",
        redirect: "/sign-in",
      };
    }
  }
  return { allow: true, route: api ? "api" : "page" };
}
