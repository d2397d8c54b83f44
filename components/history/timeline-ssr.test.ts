/**
 * The timeline's first screen as the server renders it from a seed: the entries (with their
 * diffs and times in UTC) in the HTML, and the next page offered; none for a tab in another
 * context.
 */
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import type { TimelineSeed } from "@/lib/api/history";
import { TabContextProvider } from "@/components/layout/tab-context";
import { TimelinePage } from "./timeline-page";

const KIND = "ValidatingWebhookConfiguration";
const T = Date.parse("2026-11-29T13:47:59Z");

const seed: TimelineSeed = {
  context: "kind-a",
  at: T,
  page: {
    kind: KIND,
    name: "c",
    total: 120,
    audited: true,
    nextBefore: 71,
    entries: [
      {
        change: {
          id: 72,
          time: T,
          kind: KIND,
          name: "c",
          uid: "u",
          version: "12",
          operation: "update",
          source: "audit",
          auditID: "a1",
          actor: { user: "bob", groups: [], userAgent: "kubectl" },
          object: {},
        },
        diff: [
          { path: "webhooks[name=a].timeoutSeconds", change: "changed", before: "1", after: "2" },
        ],
        known: true,
      },
    ],
  },
};

function render(context: string) {
  const client = new QueryClient();
  const html = renderToString(
    createElement(
      QueryClientProvider,
      { client },
      createElement(TabContextProvider, {
        initial: context,
        children: createElement(TimelinePage, { kind: KIND, name: "c", seed }),
      }),
    ),
  );
  return { html, client };
}

describe("the timeline rendered on the server", () => {
  it("has the seed's entries, diffs and UTC times in its HTML, and a next page", () => {
    const { html } = render("kind-a");
    expect(html).toContain('data-testid="timeline-entry"');
    expect(html).toContain("13:47:59");
    expect(html).toContain("webhooks[name=a].timeoutSeconds");
    expect(html).toContain('data-testid="change-count">120<');
    expect(html).toContain("Older changes");
    expect(html).not.toContain("Reading the history");
  });

  it("has no entries for a tab in another context", () => {
    const { html } = render("kind-b");
    expect(html).not.toContain('data-testid="timeline-entry"');
    expect(html).toContain("Reading the history");
  });
});
