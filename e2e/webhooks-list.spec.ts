import { test, expect } from "../test/e2e/fixtures";
import {
  createConfig,
  deleteConfig,
  getConfig,
  GROUP_PATH,
  hook,
  uniqueName,
} from "../test/e2e/webhooks-helpers";

test.describe("Webhooks list and detail", () => {
  test("updates live when another client creates, changes and deletes a configuration", async ({
    page,
    kube,
  }) => {
    const name = uniqueName("e2e-live");
    await page.goto(`/webhooks?q=${name}`);
    await expect(page.locator(".live")).toHaveText("live");
    await expect(page.getByTestId("row-count")).toHaveText(/^0 (rows|of \d+ rows)$/);

    const t0 = Date.now();
    await createConfig(kube, "validatingwebhookconfigurations", name, [
      hook(`a.${name}.example.com`),
      hook(`b.${name}.example.com`, { failurePolicy: "Ignore" }),
    ]);
    const rowA = page.locator(`[data-row-id="ValidatingWebhookConfiguration/${name}/0"]`);
    await expect(rowA).toBeVisible();
    test
      .info()
      .annotations.push({ type: "create→visible ms", description: String(Date.now() - t0) });
    // v1 defaults are shown explicitly.
    await expect(rowA.getByRole("cell").nth(3)).toHaveText("Fail");
    await expect(rowA.getByRole("cell").nth(4)).toHaveText("10s");
    await expect(rowA.getByRole("cell").nth(6)).toHaveText("Equivalent");

    // Another client changes it.
    const stored = await getConfig(kube, "validatingwebhookconfigurations", name);
    const patched = await kube.request(
      "PUT",
      `${GROUP_PATH}/validatingwebhookconfigurations/${name}`,
      {
        ...stored,
        webhooks: stored?.webhooks?.map((w, i) => (i === 0 ? { ...w, timeoutSeconds: 3 } : w)),
      },
    );
    expect(patched.status, patched.body).toBe(200);
    await expect(rowA.getByRole("cell").nth(4)).toHaveText("3s");

    // Filters live in the URL and survive a reload.
    await page.getByLabel("Failure policy").selectOption("Ignore");
    await expect(page).toHaveURL(/fp=Ignore/);
    await expect(page.getByTestId("row-count")).toContainText("1 of");
    await page.reload();
    await expect(page.getByLabel("Failure policy")).toHaveValue("Ignore");
    await expect(
      page.locator(`[data-row-id="ValidatingWebhookConfiguration/${name}/1"]`),
    ).toBeVisible();
    await page.getByLabel("Failure policy").selectOption("");

    // One row per configuration.
    await page.getByRole("button", { name: "One row per configuration" }).click();
    await expect(page).toHaveURL(/view=configs/);
    const cfgRow = page.locator(`[data-row-id="ValidatingWebhookConfiguration/${name}"]`);
    await expect(cfgRow).toContainText("2 hooks");
    await expect(cfgRow).toContainText("Fail, Ignore");

    await deleteConfig(kube, "validatingwebhookconfigurations", name);
    await expect(cfgRow).toHaveCount(0);
    expect(await getConfig(kube, "validatingwebhookconfigurations", name)).toBeUndefined();
  });

  test("list and detail read every field, with CA decoded and backend checked", async ({
    page,
    kube,
    stack,
    cleanup,
  }) => {
    const { caBundleOf } = await import("../cluster/certs");
    const name = uniqueName("e2e-detail");
    cleanup.defer(async () => {
      await deleteConfig(kube, "mutatingwebhookconfigurations", name);
    });
    await createConfig(kube, "mutatingwebhookconfigurations", name, [
      hook(`inject.${name}.example.com`, {
        clientConfig: { url: `https://127.0.0.1:9/inject`, caBundle: caBundleOf(stack.caFile) },
        reinvocationPolicy: "IfNeeded",
        rules: [
          {
            operations: ["*"],
            apiGroups: ["apps"],
            apiVersions: ["*"],
            resources: ["deployments", "deployments/scale", "*/status"],
            scope: "Namespaced",
          },
        ],
        objectSelector: {
          matchExpressions: [{ key: "inject", operator: "NotIn", values: ["false"] }],
        },
        matchConditions: [
          { name: "not-kube-system", expression: "request.namespace != 'kube-system'" },
        ],
      }),
      hook(`svc.${name}.example.com`, {
        clientConfig: { service: { namespace: "default", name: "missing-svc", port: 8443 } },
      }),
    ]);
    await page.goto(`/webhooks`);
    await expect(page.locator(".live")).toHaveText("live");
    await page.screenshot({ path: "e2e/artifacts/webhooks-list.png" });

    await page.goto(`/webhooks/mutatingwebhookconfigurations/${name}`);
    const first = page.getByRole("region", { name: `Hook inject.${name}.example.com` });
    await expect(first.getByRole("table", { name: "Rules" })).toContainText(
      "the scale subresource of deployments",
    );
    await expect(first).toContainText("the status subresource of every resource that has one");
    await expect(first).toContainText("any operation, including ones added in future releases");
    await expect(first).toContainText('label inject is absent or not one of "false"');
    await expect(first.getByRole("table", { name: "Match conditions" })).toContainText(
      "request.namespace != 'kube-system'",
    );
    await expect(first.getByLabel("CA certificate")).toContainText("CN=portcullis-local-ca");
    await expect(first.getByTestId("ca-days-left")).toContainText(/\d+ days left/);
    await expect(first).toContainText(/called \d+ of \d+ mutating hooks \(serial\)/);
    const second = page.getByRole("region", { name: `Hook svc.${name}.example.com` });
    await expect(second).toContainText("default/missing-svc:8443");
    await expect(second).toContainText("not found");
    await page.screenshot({ path: "e2e/artifacts/webhook-detail.png", fullPage: true });
  });
});
