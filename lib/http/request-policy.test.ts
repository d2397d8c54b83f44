import { describe, expect, it } from "vitest";
import { decide, hostAllowed, policyConfigFromEnv, type RequestFacts } from "./request-policy";

const config = policyConfigFromEnv({ PORTCULLIS_PORT: "3000" });
const page: RequestFacts = {
  method: "GET",
  pathname: "/webhooks",
  host: "127.0.0.1:3000",
  origin: null,
  secFetchSite: "none",
};
const api: RequestFacts = {
  method: "GET",
  pathname: "/api/contexts",
  host: "127.0.0.1:3000",
  origin: null,
  secFetchSite: "same-origin",
};

describe("hostAllowed", () => {
  it.each([
    ["127.0.0.1:3000", true],
    ["localhost:3000", true],
    ["LOCALHOST:3000", true],
    ["[::1]:3000", true],
    ["127.0.0.1:3001", false],
    ["127.0.0.1", false],
    ["a.attacker.example:3000", false],
    ["localhost.:3000", false],
    ["127.0.0.1:3000@evil", false],
    ["", false],
  ])("%s → %s", (host, ok) => {
    expect(hostAllowed(host, config)).toBe(ok);
  });

  it("allows names the operator configures, with or without a port", () => {
    const c = policyConfigFromEnv({
      PORTCULLIS_PORT: "3000",
      PORTCULLIS_ALLOWED_HOSTS: "portcullis.example.com, admin.example.com:8443",
    });
    expect(hostAllowed("portcullis.example.com", c)).toBe(true);
    expect(hostAllowed("portcullis.example.com:443", c)).toBe(true);
    expect(hostAllowed("admin.example.com:8443", c)).toBe(true);
    expect(hostAllowed("admin.example.com", c)).toBe(false);
  });

  it("takes a configured name:443 for the port-less Host and Origin a browser on https sends", () => {
    const c = policyConfigFromEnv({
      PORTCULLIS_PORT: "3000",
      PORTCULLIS_ALLOWED_HOSTS: "portcullis.example.org:443",
    });
    expect(hostAllowed("portcullis.example.org", c)).toBe(true);
    expect(hostAllowed("portcullis.example.org:443", c)).toBe(true);
    expect(hostAllowed("portcullis.example.org:8443", c)).toBe(false);
    expect(hostAllowed("other.example.org", c)).toBe(false);
    const write = {
      ...api,
      method: "PUT",
      pathname: "/api/webhooks/validatingwebhookconfigurations/x",
      host: "portcullis.example.org",
      origin: "https://portcullis.example.org",
    };
    expect(decide(write, c)).toEqual({ allow: true, route: "api" });
  });

  it("allows loopback names on any port only when the port is unknown", () => {
    expect(hostAllowed("localhost:9999", policyConfigFromEnv({}))).toBe(true);
    expect(hostAllowed("evil.example:9999", policyConfigFromEnv({}))).toBe(false);
  });
});

describe("decide", () => {
  it("serves pages and same-origin API calls on an allowed host", () => {
    expect(decide(page, config)).toEqual({ allow: true, route: "page" });
    expect(decide(api, config)).toEqual({ allow: true, route: "api" });
  });

  it("refuses a DNS-rebinding page: Origin equals Host, but the host is not the dashboard's", () => {
    const rebound = {
      ...api,
      method: "POST",
      pathname: "/api/webhooks/mutatingwebhookconfigurations",
      host: "a.attacker.example:3000",
      origin: "http://a.attacker.example:3000",
    };
    expect(decide(rebound, config)).toMatchObject({ allow: false, status: 421 });
    expect(decide({ ...page, host: "a.attacker.example:3000" }, config)).toMatchObject({
      allow: false,
      status: 421,
    });
  });

  it("refuses API reads and writes that are not same-origin by Fetch Metadata", () => {
    for (const secFetchSite of ["cross-site", "same-site", "none", null]) {
      for (const method of ["GET", "POST", "PUT", "DELETE"]) {
        expect(decide({ ...api, method, secFetchSite }, config)).toMatchObject({
          allow: false,
          status: 403,
        });
      }
    }
  });

  it("refuses a foreign or opaque Origin even with a same-origin claim", () => {
    for (const origin of ["https://evil.example", "null", "not a url"]) {
      expect(decide({ ...api, origin }, config)).toMatchObject({ allow: false, status: 403 });
    }
    expect(decide({ ...api, origin: "http://127.0.0.1:3000" }, config).allow).toBe(true);
  });

  it("lets non-browser callers reach only the routes meant for them", () => {
    const machine = { ...api, secFetchSite: null };
    expect(decide({ ...machine, method: "POST", pathname: "/api/audit" }, config)).toEqual({
      allow: true,
      route: "machine",
    });
    expect(decide({ ...machine, pathname: "/api/health" }, config).allow).toBe(true);
    expect(decide({ ...machine, pathname: "/api/audit" }, config).allow).toBe(false);
    expect(decide({ ...machine, pathname: "/api/contexts" }, config).allow).toBe(false);
  });

  it("refuses state-changing requests to pages from other sites", () => {
    expect(decide({ ...page, method: "POST", secFetchSite: "cross-site" }, config).allow).toBe(
      false,
    );
  });

  it("refuses a path whose %-escapes are not UTF-8 with 400, pages and API alike", () => {
    for (const pathname of [
      "/webhooks/validatingwebhookconfigurations/%E0%A4%A",
      "/namespaces/%FF",
      "/api/webhooks/validatingwebhookconfigurations/%C3",
      "/api/audit/%",
    ]) {
      const d = decide(
        { ...api, method: pathname.includes("audit") ? "POST" : "GET", pathname },
        config,
      );
      expect(d).toMatchObject({ allow: false, status: 400, reason: "BadRequest" });
    }
    // Well-formed escapes, multi-byte characters and escaped slashes are names like any other.
    for (const pathname of ["/namespaces/%E0%A4%A4", "/webhooks/x/a%2Fb", "/namespaces/%25"])
      expect(decide({ ...page, pathname }, config).allow).toBe(true);
  });

  it("answers 4xx, never 5xx", () => {
    const d = decide({ ...api, host: null }, config);
    expect(d.allow).toBe(false);
    if (!d.allow) expect(d.status).toBeLessThan(500);
  });
});

describe("shared mode", () => {
  const shared = policyConfigFromEnv({ PORTCULLIS_PORT: "3000", PORTCULLIS_MODE: "shared" });

  it("is read from PORTCULLIS_MODE; a misspelt mode fails closed", () => {
    expect(config.mode).toBe("local");
    expect(shared.mode).toBe("shared");
    expect(policyConfigFromEnv({ PORTCULLIS_MODE: "Shared " }).mode).toBe("shared");
  });

  it("sends a page load without a session to /sign-in, and serves the sign-in page and its files", () => {
    expect(decide(page, shared)).toMatchObject({ allow: false, status: 401, redirect: "/sign-in" });
    expect(decide({ ...page, hasSession: true }, shared)).toEqual({ allow: true, route: "page" });
    for (const pathname of ["/sign-in", "/_next/static/chunks/a.js", "/favicon.svg"]) {
      expect(decide({ ...page, pathname }, shared).allow).toBe(true);
    }
    // Not a prefix trick: /_next/image and other /_next paths are not public.
    expect(decide({ ...page, pathname: "/_next/image" }, shared).allow).toBe(false);
  });

  it("answers an API call without a session 401 with its own reason; local mode ignores sessions", () => {
    expect(decide(api, shared)).toMatchObject({
      allow: false,
      status: 401,
      reason: "SessionRequired",
    });
    expect(decide(api, config).allow).toBe(true);
    // A session does not lift the other rules: another site is still refused.
    expect(decide({ ...api, hasSession: true, secFetchSite: "cross-site" }, shared).allow).toBe(
      false,
    );
  });
});
