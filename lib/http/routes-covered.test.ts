/**
 * Every route under app/api is covered by the one request policy, so a new route cannot skip it:
 * the proxy runs on every path, refuses it to callers that are not the dashboard's pages unless
 * the route is a documented machine route, and the handler acts only as the context the request
 * names (or is on the short list of routes that act as no context).
 */
import { describe, expect, it } from "vitest";
import { config as proxyConfig } from "@/proxy";
import { apiRoutes } from "@/test/api-routes";
import { decide, MACHINE_ROUTES, policyConfigFromEnv, SESSIONLESS_ROUTES } from "./request-policy";

const routes = apiRoutes();

/** Routes whose handlers act as no kubeconfig context, and why that is safe. */
const CONTEXT_FREE: Record<string, string> = {
  "GET /api/health": "process liveness and counts only",
  "HEAD /api/health": "process liveness",
  "GET /api/contexts": "lists the kubeconfig's context names, reads no cluster",
  "POST /api/contexts": "sets the cookie that picks where a new tab starts",
  "POST /api/audit": "the apiserver's audit sink, authenticated by its own token",
  "POST /api/session": "shared mode's sign-in: the apiserver checks the token it is given",
  "POST /api/session/oidc": "starts an OIDC sign-in: reads no cluster",
  "GET /api/break-glass/stream":
    "tells that break-glass episodes changed, carrying none: reads no cluster (the list route decides what the user sees)",
  "GET /api/test-hooks/audit-follower":
    "test-only (404 unless PORTCULLIS_TEST_HOOKS=1, never in shared mode): file mode's progress, reads no cluster",
  "POST /api/session/oidc/callback":
    "completes an OIDC sign-in: the apiserver checks the ID token it is given",
  ...Object.fromEntries(
    ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"].map((m) => [
      `${m} /api/x-...path`,
      "answers 404 for a path no route serves: reads no cluster",
    ]),
  ),
};

describe("every API route is under the request policy", () => {
  it("finds the routes", () => {
    expect(routes.length).toBeGreaterThan(10);
  });

  it("the proxy runs on every path", () => {
    expect(proxyConfig.matcher).toBe("/:path*");
  });

  const policy = policyConfigFromEnv({ PORTCULLIS_PORT: "3000" });
  it.each(routes.map((r) => [`${r.method} ${r.urlPath}`, r] as const))("%s", (_name, r) => {
    const facts = {
      method: r.method,
      pathname: r.urlPath,
      host: "127.0.0.1:3000",
      origin: null,
    };
    // The dashboard's own pages get through.
    expect(decide({ ...facts, secFetchSite: "same-origin" }, policy).allow).toBe(true);
    // Another site never does, and a rebound host name never does.
    expect(decide({ ...facts, secFetchSite: "cross-site" }, policy).allow).toBe(
      MACHINE_ROUTES.some((m) => m.method === r.method && m.path === r.urlPath),
    );
    expect(
      decide({ ...facts, host: "rebound.example:3000", secFetchSite: "same-origin" }, policy).allow,
    ).toBe(false);
    // Scripts and other non-browser callers only on the machine routes.
    const machine = MACHINE_ROUTES.some((m) => m.method === r.method && m.path === r.urlPath);
    expect(decide({ ...facts, secFetchSite: null }, policy).allow).toBe(machine);
    // The handler acts as the context the request names, or is known to act as none.
    const key = `${r.method} ${r.urlPath}`;
    if (!(key in CONTEXT_FREE)) {
      expect(r.text, `${r.file} must take its identity from contextOf/clientFor`).toMatch(
        /\b(contextOf|clientFor|authorize\w*)\(request\)/,
      );
    }
    expect(r.text, `${r.file} must not read the context cookie itself`).not.toMatch(
      /portcullis-context|resolveContext\(/,
    );
  });

  // Shared mode: without a session cookie only health, sign-in (token and OIDC) and the audit sink
  // are served.
  const shared = policyConfigFromEnv({ PORTCULLIS_PORT: "3000", PORTCULLIS_MODE: "shared" });
  const SESSIONLESS = new Set([
    "GET /api/health",
    "HEAD /api/health",
    "POST /api/audit",
    "POST /api/session",
    "POST /api/session/oidc",
    "POST /api/session/oidc/callback",
  ]);
  it("the shared-mode exemptions are exactly health, sign-in (token and OIDC) and the audit sink", () => {
    expect(
      new Set([...MACHINE_ROUTES, ...SESSIONLESS_ROUTES].map((m) => `${m.method} ${m.path}`)),
    ).toEqual(SESSIONLESS);
  });
  it.each(routes.map((r) => [`shared mode: ${r.method} ${r.urlPath}`, r] as const))(
    "%s",
    (_name, r) => {
      const facts = {
        method: r.method,
        pathname: r.urlPath,
        host: "127.0.0.1:3000",
        origin: null,
        secFetchSite: "same-origin",
      };
      const without = decide({ ...facts, hasSession: false }, shared);
      if (SESSIONLESS.has(`${r.method} ${r.urlPath}`)) {
        expect(without.allow).toBe(true);
      } else {
        expect(without).toMatchObject({ allow: false, status: 401 });
      }
      expect(decide({ ...facts, hasSession: true }, shared).allow).toBe(true);
    },
  );
});

// A body is read only through server/http/body.ts, which counts the sender before reading (a live
// session in shared mode, or the sign-in limit), refuses more than the byte limit (413) and
// nesting past MAX_JSON_DEPTH (400) before JSON.parse: so a new route that parses a body cannot
// skip the limits, and server/http/body.int.test.ts sends the hostile bodies to every route whose
// handler reads one.
describe("every API route reads a body only within the limits", () => {
  it.each(routes.map((r) => [`${r.method} ${r.urlPath}`, r] as const))("%s", (_name, r) => {
    expect(r.text, `${r.file} must read its body with readJson (server/http/body.ts)`).not.toMatch(
      /\b(request|req)\.(json|text|arrayBuffer|formData|blob|bytes)\(|\b(request|req)\.body\b|JSON\.parse\(|parseDocuments\(|from "yaml"/,
    );
    // A route that reads a body reads it in the handler itself, where the body test finds it.
    if (r.text.includes("readJson(")) {
      expect(r.text).toMatch(/import \{[^}]*\breadJson\b[^}]*\} from "@\/server\/http\/body"/);
      const readers = routes.filter((o) => o.file === r.file && o.handler.includes("readJson("));
      expect(readers.length, `${r.file}: readJson called outside an exported handler`).toBe(
        r.text.split("readJson(").length - 1,
      );
    }
  });
});
