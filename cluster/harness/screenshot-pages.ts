/**
 * The pages `npm run screenshots` saves (docs/screenshots/<name>.png): every page of the demo
 * (DEMO_PAGES, local mode) and the sign-in pages, which only a shared-mode dashboard shows. Each
 * app/ route has at least one; cluster/harness/screenshot-pages.test.ts fails when a new page
 * has none.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { DEMO_PAGES, type DemoPage } from "./demo-ready";

export interface ScreenshotPage extends DemoPage {
  /** Which dashboard shows it: the demo's own (local mode) or a shared-mode one beside it. */
  mode: "local" | "shared";
}

/**
 * Shared mode's sign-in pages. The issuer's redirect target is taken while the dashboard
 * completes the sign-in (the screenshot script holds that request), as a user sees it.
 */
const SIGN_IN_PAGES: ReadonlyArray<DemoPage> = [
  { path: "/sign-in", route: "/sign-in", name: "sign-in", shows: "Bearer token" },
  {
    path: "/sign-in/oidc?code=demo-code&state=demo-state",
    route: "/sign-in/oidc",
    name: "sign-in-oidc",
    shows: "Completing the sign-in",
  },
];

export const SCREENSHOT_PAGES: ReadonlyArray<ScreenshotPage> = [
  ...DEMO_PAGES.map((p) => ({ ...p, mode: "local" as const })),
  ...SIGN_IN_PAGES.map((p) => ({ ...p, mode: "shared" as const })),
];

/**
 * The routes of the App Router pages below `appDir` (each folder holding a page.tsx), as
 * `/a/[param]/b`; route groups `(x)` add no segment.
 */
export function appPageRoutes(appDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, segments: string[]) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) {
        // api/ holds route handlers, not pages; _private folders are not routes.
        if (segments.length === 0 && e.name === "api") continue;
        if (e.name.startsWith("_")) continue;
        const seg = /^\(.*\)$/.test(e.name) ? [] : [e.name];
        walk(path.join(dir, e.name), [...segments, ...seg]);
      } else if (/^page\.(tsx|ts|jsx|js)$/.test(e.name)) {
        out.push("/" + segments.join("/"));
      }
    }
  };
  walk(appDir, []);
  return out.sort();
}

/** Whether `urlPath` (query ignored) is a path the route `route` renders. */
export function routeMatches(route: string, urlPath: string): boolean {
  const pathname = urlPath.split("?")[0] as string;
  const pattern = route
    .split("/")
    .map((s) =>
      /^\[\[?\.\.\./.test(s)
        ? ".*"
        : /^\[.+\]$/.test(s)
          ? "[^/]+"
          : s.replace(/[.*+?^${}()|\\]/g, "\\$&"),
    )
    .join("/");
  return new RegExp(`^${pattern === "" ? "/" : pattern}$`).test(pathname);
}
