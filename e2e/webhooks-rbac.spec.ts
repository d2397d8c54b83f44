import { test, expect } from "../test/e2e/fixtures";
import { policyHeaders } from "../test/api-headers";
import {
  createConfig,
  deleteConfig,
  getConfig,
  hook,
  uniqueName,
} from "../test/e2e/webhooks-helpers";

const V = "validatingwebhookconfigurations" as const;

test.describe("Viewer", () => {
  test("sees read-only pages, and the apiserver refuses a direct write with 403", async ({
    page,
    kube,
    stack,
    baseURL,
    cleanup,
  }) => {
    const name = uniqueName("e2e-rbac");
    cleanup.defer(async () => {
      await deleteConfig(kube, V, name);
    });
    const created = await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    await page
      .context()
      .addCookies([
        { name: "portcullis-context", value: stack.contexts.viewer, url: baseURL ?? "" },
      ]);

    await page.goto(`/webhooks?q=${name}`);
    await expect(
      page.locator(`[data-row-id="ValidatingWebhookConfiguration/${name}/0"]`),
    ).toBeVisible();
    await expect(page.getByRole("button", { name: "New from template" })).toBeDisabled();

    await page.goto(`/webhooks/${V}/${name}`);
    await expect(page.getByTestId("read-only")).toBeVisible();
    await expect(page.getByRole("button", { name: "Edit YAML" })).toBeDisabled();
    await expect(page.getByRole("button", { name: "Duplicate" })).toBeDisabled();
    await expect(page.getByRole("button", { name: "Delete…" })).toBeDisabled();

    await page.goto(`/webhooks/${V}/${name}/edit`);
    await expect(page.getByTestId("read-only")).toBeVisible();
    await expect(page.getByRole("button", { name: "Apply" })).toBeDisabled();
    await expect(page.getByRole("button", { name: "Dry run" })).toBeDisabled();

    await page.goto("/webhooks/order");
    await expect(page.getByRole("button", { name: `Rename ${name}` })).toBeDisabled();
    await expect(
      page.getByTestId(`config-${name}`).getByRole("button", { name: /position 1/ }),
    ).toBeDisabled();

    // A direct call through the dashboard's API: the apiserver says 403, and it is passed on as such.
    const stored = await getConfig(kube, V, name);
    const headers = policyHeaders(stack.contexts.viewer);
    const put = await page.request.put(`/api/webhooks/${V}/${name}`, {
      headers,
      data: {
        object: { ...stored, webhooks: [{ ...stored?.webhooks?.[0], timeoutSeconds: 3 }] },
      },
    });
    expect(put.status()).toBe(403);
    const body = (await put.json()) as { reason: string; message: string };
    expect(body.reason).toBe("Forbidden");
    expect(body.message).toContain("viewer");
    const del = await page.request.delete(`/api/webhooks/${V}/${name}`, {
      headers,
      data: { uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion },
    });
    expect(del.status()).toBe(403);
    const rename = await page.request.post(`/api/webhooks/${V}/${name}/rename`, {
      headers,
      data: { newName: `${name}-x`, resourceVersion: created.metadata.resourceVersion },
    });
    expect(rename.status()).toBe(403);

    const after = await getConfig(kube, V, name);
    expect(after?.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(await getConfig(kube, V, `${name}-x`)).toBeUndefined();
  });
});
