/**
 * An axe check of every page reachable from the root (following the dashboard's own links, with
 * a mutating and a validating configuration seeded so detail and edit pages exist), in the light
 * and the dark theme: zero serious or critical violations, with no baseline of accepted ones.
 */
import type { Page } from "@playwright/test";
import { test, expect } from "../test/e2e/fixtures";
import { serious } from "../test/e2e/axe";
import { createConfig, deleteConfig, hook, uniqueName } from "../test/e2e/webhooks-helpers";

/** Pages no link leads to but an admin reaches by URL or a menu. */
const EXTRA_PAGES = ["/webhooks/new", "/no-such-page"];
const MAX_PAGES = 40;

/** Waits until the page has read the cluster: its heading is there and nothing is loading. */
async function settled(page: Page): Promise<void> {
  await expect(page.locator("main h1").first()).toBeVisible();
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0, { timeout: 15_000 });
}

/**
 * Switches the page to a colour scheme without reloading it: the theme follows the scheme through
 * CSS, and Monaco's editors through their subscription to it (class vs-dark once they have).
 */
async function showScheme(page: Page, scheme: "light" | "dark"): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  await expect(
    page.locator(scheme === "dark" ? ".monaco-editor:not(.vs-dark)" : ".monaco-editor.vs-dark"),
  ).toHaveCount(0);
}

/** Path segments that name a page rather than an object (kept when pages are grouped). */
const PAGE_SEGMENTS = new Set([
  "webhooks",
  "order",
  "new",
  "edit",
  "policies",
  "namespaces",
  "hooks",
  "deadlocks",
  "health",
  "predict",
  "decisions",
  "initializers",
  "external-admission-hooks",
  "legacy-webhooks",
  "mutatingwebhookconfigurations",
  "validatingwebhookconfigurations",
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
  "mutatingadmissionpolicies",
  "mutatingadmissionpolicybindings",
]);

/**
 * The page a link shows, whatever object it shows it for: object names become `*` and query
 * values are dropped, so the crawl visits each kind of page once however many objects the
 * cluster holds (other tests leave theirs behind).
 */
function pageKind(href: string): string {
  const url = new URL(href, "http://x");
  const path = url.pathname
    .split("/")
    .map((s, i) => (i === 0 || PAGE_SEGMENTS.has(s) ? s : "*"))
    .join("/");
  const params = [...new Set(url.searchParams.keys())].sort().join("&");
  return params ? `${path}?${params}` : path;
}

/**
 * One same-origin page of each kind the dashboard links to, breadth first from the root.
 * `visit` is called on each page the crawl loads, once it has settled; the pages found but not
 * loaded (the extra pages, those left in the queue at MAX_PAGES) are the caller's to load.
 */
async function crawl(
  page: Page,
  prefer: string[],
  visit: (path: string) => Promise<void>,
): Promise<string[]> {
  const kinds = new Map<string, string>([
    ["/", "/"],
    ...EXTRA_PAGES.map((p) => [pageKind(p), p] as [string, string]),
  ]);
  const queue = ["/"];
  while (queue.length > 0 && kinds.size < MAX_PAGES) {
    const path = queue.shift() as string;
    await page.goto(path);
    await settled(page);
    await visit(path);
    const hrefs = await page
      .locator("a[href^='/']")
      .evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).getAttribute("href") ?? ""));
    // Links to this test's own objects first, so their pages are the ones checked.
    hrefs.sort(
      (a, b) =>
        Number(prefer.some((n) => b.includes(n))) - Number(prefer.some((n) => a.includes(n))),
    );
    for (const href of hrefs) {
      const clean = href.split("#")[0] ?? "";
      if (!clean || clean.startsWith("/api/") || clean.startsWith("/_next/")) continue;
      const kind = pageKind(clean);
      if (kinds.has(kind)) continue;
      kinds.set(kind, clean);
      queue.push(clean);
    }
  }
  return [...kinds.values()];
}

test.describe("Accessibility", () => {
  test("every page has zero serious or critical axe violations, light and dark", async ({
    page,
    kube,
    cleanup,
  }) => {
    test.setTimeout(420_000);
    const m = uniqueName("e2e-a11y-m");
    const v = uniqueName("e2e-a11y-v");
    await createConfig(kube, "mutatingwebhookconfigurations", m, [hook(`a.${m}.example.com`)]);
    await createConfig(kube, "validatingwebhookconfigurations", v, [hook(`a.${v}.example.com`)]);
    // A v1beta1 configuration, so the historical page is checked with content.
    const legacy = `/apis/admission.portcullis.dev/v1beta1/mutatingwebhookconfigurations`;
    const created = await kube.request("POST", legacy, {
      apiVersion: "admission.portcullis.dev/v1beta1",
      kind: "MutatingWebhookConfiguration",
      metadata: { name: m },
      webhooks: [{ name: `a.${m}.example.com`, clientConfig: { url: "https://127.0.0.1:1/x" } }],
    });
    expect(created.status, created.body).toBe(201);
    cleanup.defer(async () => {
      await deleteConfig(kube, "mutatingwebhookconfigurations", m);
      await deleteConfig(kube, "validatingwebhookconfigurations", v);
      await kube.request("DELETE", `${legacy}/${m}`);
    });
    const found: string[] = [];
    // Each page is titled by what it shows (WCAG 2.4.2), so tabs and history tell them apart:
    // "<page or object> · Portcullis", one title per path.
    const titles = new Map<string, string>();
    // Each page is loaded once and checked in both themes (showScheme: no reload needed).
    const check = async (path: string) => {
      for (const scheme of ["light", "dark"] as const) {
        await showScheme(page, scheme);
        for (const f of await serious(page)) found.push(`${scheme} ${path}: ${f}`);
      }
      await showScheme(page, "light");
      titles.set(path.split("?")[0] ?? path, await page.title());
    };
    await page.emulateMedia({ colorScheme: "light" });
    const checked = new Set<string>();
    const pages = await crawl(page, [m, v], async (path) => {
      await check(path);
      checked.add(path);
    });
    expect(pages).toEqual(
      expect.arrayContaining([
        "/webhooks",
        "/webhooks/order",
        "/legacy-webhooks",
        `/webhooks/validatingwebhookconfigurations/${v}`,
      ]),
    );
    for (const path of pages.filter((p) => !checked.has(p))) {
      await page.goto(path);
      await settled(page);
      await check(path);
    }
    expect(found, found.join("\n")).toEqual([]);
    for (const [path, title] of titles) expect(title, path).toMatch(/^\S.* · Portcullis$/);
    const byTitle = new Map<string, string[]>();
    for (const [path, title] of titles) byTitle.set(title, [...(byTitle.get(title) ?? []), path]);
    expect([...byTitle].filter(([, paths]) => paths.length > 1)).toEqual([]);
    expect(titles.get(`/webhooks/validatingwebhookconfigurations/${v}`)).toBe(
      `${v} · ValidatingWebhookConfiguration · Portcullis`,
    );
  });

  // The crawl reaches a page only through a link to an object that exists; a link kept from
  // before a deletion (a bookmark, a policy the apiserver's metrics still name) leads here.
  test("pages for an object that is gone have zero serious or critical axe violations", async ({
    page,
  }) => {
    const found: string[] = [];
    for (const path of [
      "/webhooks/validatingwebhookconfigurations/portcullis-gone",
      "/policies/mutatingadmissionpolicies/portcullis-gone",
      "/hooks/ValidatingWebhookConfiguration/portcullis-gone/gone.example.com",
    ]) {
      await page.emulateMedia({ colorScheme: "light" });
      await page.goto(path);
      await expect(page.getByRole("alert").or(page.locator(".alert")).first()).toBeVisible();
      // Both themes on one load (showScheme).
      for (const scheme of ["light", "dark"] as const) {
        await showScheme(page, scheme);
        for (const f of await serious(page)) found.push(`${scheme} ${path}: ${f}`);
      }
    }
    expect(found, found.join("\n")).toEqual([]);
  });

  test("the main pages can be operated from the keyboard with a visible focus", async ({
    page,
  }) => {
    for (const path of ["/", "/webhooks", "/webhooks/order"]) {
      await page.goto(path);
      await settled(page);
      await page.keyboard.press("Tab");
      const focus = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        if (!el || el === document.body) return null;
        const style = getComputedStyle(el);
        return {
          tag: el.tagName,
          outline: style.outlineStyle !== "none" && style.outlineWidth !== "0px",
          shadow: style.boxShadow !== "none",
        };
      });
      expect(focus, `${path}: Tab focuses an element`).not.toBeNull();
      expect(focus!.outline || focus!.shadow, `${path}: the focused ${focus!.tag} is visible`).toBe(
        true,
      );
    }
  });
});
