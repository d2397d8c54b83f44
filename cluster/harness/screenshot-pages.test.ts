/**
 * Every page of the app has a screenshot: a page.tsx added under app/ without an entry in the
 * screenshot list (cluster/harness/screenshot-pages.ts) fails here, as does an entry whose path
 * its route does not render.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { appPageRoutes, routeMatches, SCREENSHOT_PAGES } from "./screenshot-pages";

const APP = path.resolve(import.meta.dirname, "../../app");

describe("screenshot pages", () => {
  const routes = appPageRoutes(APP);

  it("finds the app's pages, static and dynamic", () => {
    expect(routes).toContain("/");
    expect(routes).toContain("/initializers");
    expect(routes).toContain("/webhooks/[resource]/[name]/edit");
    expect(routes.some((r) => r.startsWith("/api"))).toBe(false);
  });

  it("has a screenshot of every page route", () => {
    const covered = new Set(SCREENSHOT_PAGES.map((p) => p.route));
    expect(routes.filter((r) => !covered.has(r))).toEqual([]);
  });

  it("names only routes that exist, with a path each route renders", () => {
    for (const p of SCREENSHOT_PAGES) {
      expect(routes, p.name).toContain(p.route);
      expect(routeMatches(p.route, p.path), `${p.name}: ${p.path} is not ${p.route}`).toBe(true);
      // The most specific route renders it: no static route of the app matches it too.
      const statics = routes.filter((r) => !r.includes("[") && r !== p.route);
      expect(
        statics.filter((r) => routeMatches(r, p.path)),
        p.name,
      ).toEqual([]);
    }
  });

  it("gives each screenshot its own file name", () => {
    const names = SCREENSHOT_PAGES.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[a-z0-9-]+$/);
  });

  it("matches paths to routes segment by segment", () => {
    expect(routeMatches("/", "/")).toBe(true);
    expect(routeMatches("/decisions", "/decisions?outcome=denied")).toBe(true);
    expect(routeMatches("/webhooks/[resource]/[name]", "/webhooks/a/b")).toBe(true);
    expect(routeMatches("/webhooks/[resource]/[name]", "/webhooks/a/b/edit")).toBe(false);
    expect(routeMatches("/webhooks/new", "/webhooks/newer")).toBe(false);
  });
});
