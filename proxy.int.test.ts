/** The dashboard refuses API writes a browser sends for another site, and nothing changes. */
import { beforeAll, describe, expect, it } from "vitest";
import { readStack, type StackInfo } from "./cluster/harness/stack";

let stack: StackInfo;
beforeAll(() => {
  stack = readStack();
});

describe("cross-site writes", () => {
  it("refuses a cross-site POST with 403 and sets no cookie", async () => {
    const res = await fetch(`${stack.dashboardUrl}/api/contexts`, {
      method: "POST",
      headers: {
        "content-type": "text/plain",
        origin: "https://evil.example",
        "sec-fetch-site": "cross-site",
      },
      body: JSON.stringify({ context: stack.contexts.viewer }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(((await res.json()) as { reason: string }).reason).toBe("CrossSiteRequest");
  });

  it("lets the dashboard's own pages and non-browser clients write", async () => {
    const variants: Array<Record<string, string>> = [
      { "sec-fetch-site": "same-origin", origin: stack.dashboardUrl },
      {},
    ];
    for (const headers of variants) {
      const res = await fetch(`${stack.dashboardUrl}/api/contexts`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ context: stack.contexts.viewer }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("set-cookie")).toContain("portcullis-context=");
    }
  });

  it("still accepts the apiserver's audit batches, which carry their own token", async () => {
    const res = await fetch(`${stack.dashboardUrl}/api/audit`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.auditToken}`, origin: "https://elsewhere.example" },
      body: JSON.stringify({ kind: "EventList", items: [] }),
    });
    expect(res.status).toBe(200);
  });
});
