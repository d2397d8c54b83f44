/**
 * The Health page in Chromium against the real apiserver and harness webhooks: hooks are ranked
 * worst first and each flagged row says why, with the apiserver's own call counts.
 */
import { test, expect } from "./fixtures";
import { startWebhookServer, type WebhookServer } from "../cluster/harness/webhook-server";
import { uniqueName } from "./webhooks-helpers";

test.describe("Health", () => {
  let server: WebhookServer;
  test.afterEach(async () => {
    await server?.close();
  });

  test("ranks hooks worst first and says why each is flagged", async ({ page, kube, stack }) => {
    server = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
    server.program("fast", { type: "allow" });
    server.program("fail-open", { type: "sleep", seconds: 3 });
    const name = uniqueName("e2e-health");
    const ns = uniqueName("e2e-health-ns");
    const hook = (h: string, extra: Record<string, unknown> = {}) => ({
      name: `${h}.${name}.example.com`,
      clientConfig: { url: server.url(h), caBundle: server.caBundle },
      rules: [
        { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
      ],
      namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      failurePolicy: "Ignore",
      timeoutSeconds: 1,
      ...extra,
    });
    const base = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
    expect(
      (await kube.request("POST", "/api/v1/namespaces", { metadata: { name: ns } })).status,
    ).toBe(201);
    expect(
      (
        await kube.request("POST", base, {
          metadata: { name },
          webhooks: [hook("fast", { timeoutSeconds: 5 }), hook("fail-open")],
        })
      ).status,
    ).toBe(201);
    try {
      for (let i = 0; i < 2; i++) {
        const res = await kube.request("POST", `/api/v1/namespaces/${ns}/configmaps`, {
          metadata: { name: `cm-${i}` },
        });
        expect(res.status).toBe(201);
      }
      await page.goto("/health");
      await expect(page.getByRole("heading", { name: "Health" })).toBeVisible();
      const failOpen = page.getByTestId(`health-${name}-1`);
      const fast = page.getByTestId(`health-${name}-0`);
      // The page refreshes as the apiserver's metrics are read (every 15 s at most).
      // It times out every call: critical, and it failed open each time.
      await expect(failOpen).toHaveAttribute("data-severity", "critical", { timeout: 30_000 });
      await expect(failOpen.locator('[data-code="slow"]')).toContainText("calls time out");
      await expect(failOpen.locator('[data-code="fails-open"]')).toContainText(
        "failed open 2 times",
      );
      await expect(fast).toHaveAttribute("data-severity", "ok");
      await expect(fast).toContainText("TLS ok");
      // Worst first: the failing-open hook comes before the healthy one.
      const order = await page
        .locator("table.health-table tbody tr")
        .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-testid")));
      expect(order.indexOf(`health-${name}-1`)).toBeLessThan(order.indexOf(`health-${name}-0`));
      // The hook links to its configuration.
      await expect(failOpen.getByRole("link", { name })).toHaveAttribute(
        "href",
        `/webhooks/validatingwebhookconfigurations/${name}`,
      );
      await page.screenshot({ path: "e2e/artifacts/health.png", fullPage: true });
    } finally {
      await kube.request("DELETE", `${base}/${name}`);
      await kube.request("DELETE", `/api/v1/namespaces/${ns}`);
    }
  });
});
