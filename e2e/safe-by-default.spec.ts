/**
 * Safe by default, in Chromium: another origin cannot frame the dashboard, two tabs on two
 * contexts each act as their own (read back from the apiserver), a malformed cookie is
 * ignored, and no page breaks its own Content-Security-Policy.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test, expect } from "../test/e2e/fixtures";
import { createConfig, getConfig, hook, uniqueName } from "../test/e2e/webhooks-helpers";

const V = "validatingwebhookconfigurations" as const;

test.describe("Safe by default", () => {
  test("a page on another origin cannot frame the dashboard", async ({ page, stack, cleanup }) => {
    // The attacker's page: another origin (localhost, another port) framing the call order page.
    const framer = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(
        `<!doctype html><title>attacker</title><p>win a prize</p>` +
          `<iframe id="victim" src="${stack.dashboardUrl}/webhooks/order" width="800" height="600"></iframe>`,
      );
    });
    await new Promise<void>((r) => framer.listen(0, "127.0.0.1", r));
    const framerPort = (framer.address() as AddressInfo).port;
    cleanup.defer(async () => {
      framer.close();
    });
    const framed = page.waitForResponse((r) => r.url().endsWith("/webhooks/order"));
    await page.goto(`http://localhost:${framerPort}/`);
    const response = await framed;
    expect(response.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(response.headers()["x-frame-options"]).toBe("DENY");
    await page.waitForTimeout(500);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame).toBeDefined();
    // Chromium refused to render it: the frame holds its error page, not the dashboard.
    await expect(frame!.getByRole("heading", { name: "Call order" })).toHaveCount(0);
    await expect(frame!.getByRole("button")).toHaveCount(0);
    expect(frame!.url()).not.toBe(`${stack.dashboardUrl}/webhooks/order`);
  });

  test("two tabs on two contexts each read and write as their own", async ({
    context,
    kube,
    stack,
    cleanup,
  }) => {
    const name = uniqueName("e2e-tabs");
    const created = await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    const admin = await context.newPage();
    const viewer = await context.newPage();
    cleanup.defer(async () => {
      if (await getConfig(kube, V, name)) {
        await kube.request("DELETE", `/apis/admissionregistration.k8s.io/v1/${V}/${name}`);
      }
      void created;
    });
    await admin.goto(`/webhooks/${V}/${name}`);
    await expect(admin.getByLabel("Context")).toHaveValue(stack.contexts.admin);
    await viewer.goto(`/webhooks/${V}/${name}`);
    // The second tab switches: the first keeps its own context (the cookie is shared).
    await viewer.getByLabel("Context").selectOption(stack.contexts.viewer);
    await expect(viewer.getByTestId("read-only")).toBeVisible();
    await expect(viewer.getByRole("button", { name: "Delete…" })).toBeDisabled();

    // The first tab, reloaded after the switch elsewhere, is still the admin and can write.
    await admin.reload();
    await expect(admin.getByLabel("Context")).toHaveValue(stack.contexts.admin);
    await expect(admin.getByTestId("read-only")).toHaveCount(0);
    await admin.getByRole("button", { name: "Delete…" }).click();
    const dialog = admin.getByRole("dialog");
    await dialog.getByLabel("Type the name to confirm").fill(name);
    await dialog.getByRole("button", { name: `Delete ${name}` }).click();
    await expect.poll(async () => getConfig(kube, V, name)).toBeUndefined();

    // The viewer tab, reloaded, is still the viewer; a new tab starts where the last switch was.
    await viewer.reload();
    await expect(viewer.getByLabel("Context")).toHaveValue(stack.contexts.viewer);
    const fresh = await context.newPage();
    await fresh.goto("/");
    await expect(fresh.getByLabel("Context")).toHaveValue(stack.contexts.viewer);
    await fresh.close();
  });

  test("a malformed context cookie is ignored: the page renders as the default", async ({
    page,
    stack,
    baseURL,
  }) => {
    await page
      .context()
      .addCookies([{ name: "portcullis-context", value: "%E0%A4%A", url: baseURL ?? "" }]);
    await page.goto("/");
    await expect(page.getByLabel("Context")).toHaveValue(stack.contexts.admin);
    await expect(page.getByTestId("server-version")).toHaveText("v1.37.2");
  });

  test("no page violates its own Content-Security-Policy, the editor included", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-csp");
    cleanup.defer(async () => {
      await kube.request("DELETE", `/apis/admissionregistration.k8s.io/v1/${V}/${name}`);
    });
    await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    const violations: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    for (const path of ["/", "/webhooks", "/webhooks/order", `/webhooks/${V}/${name}`]) {
      await page.goto(path);
      await expect(page.locator("main h1").first()).toBeVisible();
    }
    await page.goto(`/webhooks/${V}/${name}/edit`);
    // Monaco and its YAML worker run under the policy: the worker reports a syntax error.
    await expect(page.locator(".monaco-editor").first()).toBeVisible({ timeout: 20_000 });
    await page.waitForTimeout(1_000);
    expect(violations).toEqual([]);
  });
});
