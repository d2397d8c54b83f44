/**
 * Every route under app/api has exactly one contract in lib/api, at the path its folder gives it
 * and for each method it exports, and the handler answers through that contract; every contract
 * has its handler. The browser reaches the API only through lib/api's client, and the server
 * never imports the browser's data layer (lib/queries).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { apiRoutes } from "@/test/api-routes";
import { API_ROUTES } from "./routes";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

/** A contract's path as test/api-routes.ts names a route's: each dynamic segment `x-<name>`. */
function urlPathOf(contractPath: string): string {
  return contractPath.replace(/\[([^\]]+)\]/g, "x-$1");
}

function sourceFiles(dir: string, skip: (rel: string) => boolean = () => false): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((entry) => {
    const rel = path.join(dir, entry);
    if (skip(rel)) return [];
    if (statSync(path.join(ROOT, rel)).isDirectory()) return sourceFiles(rel, skip);
    return /\.(ts|tsx)$/.test(entry) ? [rel] : [];
  });
}

/** The text without comments (a comment may name a URL; only code calls one). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/**
 * Handlers that answer through a server module sharing their contract (the audit sink's TLS
 * listener answers the same way): the module named must use the contract.
 */
const ANSWERED_ELSEWHERE: Record<string, string> = {
  "POST /api/audit": "server/audit/sink.ts",
};

const routes = apiRoutes();
const contracts = Object.entries(API_ROUTES);

describe("API route contracts", () => {
  it("finds the routes and the contracts", () => {
    expect(routes.length).toBeGreaterThan(20);
    expect(contracts.length).toBeGreaterThan(20);
  });

  it.each(routes.map((r) => [`${r.method} ${r.urlPath}`, r] as const))(
    "%s has exactly one contract, and its handler answers through it",
    (_name, r) => {
      const mine = contracts.filter(
        ([, c]) => c.method === r.method && urlPathOf(c.path) === r.urlPath,
      );
      expect(
        mine.map(([n]) => n),
        `${r.file}: one contract in lib/api for ${r.method}`,
      ).toHaveLength(1);
      const [name] = mine[0] as [string, unknown];
      const answeredIn = ANSWERED_ELSEWHERE[`${r.method} ${r.urlPath}`];
      const text = answeredIn ? readFileSync(path.join(ROOT, answeredIn), "utf8") : r.text;
      const ident = name.split(".")[0] as string;
      expect(text, `${answeredIn ?? r.file} must use ${ident}`).toMatch(
        new RegExp(`\\b${ident}\\b`),
      );
      // No JSON built around the contract: respond/fail are the handler's only JSON writers.
      expect(code(r.text), `${r.file} answers JSON through respond/fail`).not.toMatch(
        /Response\.json\(|\bjson\(/,
      );
    },
  );

  it.each(contracts.map(([name, c]) => [`${name}: ${c.method} ${c.path}`, c] as const))(
    "%s has its handler",
    (_name, c) => {
      expect(
        routes.filter((r) => r.method === c.method && r.urlPath === urlPathOf(c.path)),
      ).toHaveLength(1);
    },
  );

  it("no two contracts share a method and path", () => {
    const keys = contracts.map(([, c]) => `${c.method} ${c.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe("the browser calls the API through lib/api's client only", () => {
  const browser = [
    ...sourceFiles("components"),
    ...sourceFiles("app", (rel) => rel === path.join("app", "api")),
    ...sourceFiles("lib/queries"),
  ].filter((f) => !/\.test\.tsx?$/.test(f));

  it("finds the browser's code", () => {
    expect(browser.length).toBeGreaterThan(50);
  });

  it.each(browser)("%s", (file) => {
    const text = code(readFileSync(path.join(ROOT, file), "utf8"));
    // No request of its own: callApi (lib/api/client.ts) is the one fetch.
    expect(text, "calls fetch itself").not.toMatch(/\bfetch\s*\(/);
    // No dashboard API URL written by hand: the contract's path is the one place it is.
    expect(text, "writes an /api URL by hand").not.toMatch(/["'`]\/api(\/|\?|["'`])/);
    // Event streams open at a contract's URL.
    for (const m of text.matchAll(/new EventSource\(([^;]*)/g)) {
      expect(m[1], "opens an EventSource at a URL not built by streamUrl").toMatch(
        /^\s*streamUrl\(/,
      );
    }
  });
});

describe("the server does not import the browser's data layer", () => {
  const server = [
    ...sourceFiles("server"),
    ...sourceFiles(path.join("app", "api")),
    "proxy.ts",
    "instrumentation.ts",
  ];

  it("finds the server's code", () => {
    expect(server.length).toBeGreaterThan(50);
  });

  it.each(server)("%s", (file) => {
    const text = readFileSync(path.join(ROOT, file), "utf8");
    // `from "…"`, a bare `import "…"`, or `import("…")`.
    expect(text).not.toMatch(/(\bfrom|\bimport|\bimport\()\s*["'](@\/|(\.\.\/)+)lib\/queries\//);
  });

  it("nor does lib/api (the contracts are shared by both)", () => {
    for (const file of sourceFiles("lib/api")) {
      const text = readFileSync(path.join(ROOT, file), "utf8");
      expect(text, file).not.toMatch(/["']@\/lib\/queries|["']\.\.\/queries/);
    }
  });
});
