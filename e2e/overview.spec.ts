import { test, expect } from "../test/e2e/fixtures";

test.describe("Overview", () => {
  test("shows the real version, the admission APIs served, and live counts", async ({
    page,
    kube,
  }) => {
    const version = JSON.parse((await kube.request("GET", "/version")).body) as {
      gitVersion: string;
    };
    const group = JSON.parse(
      (await kube.request("GET", "/apis/admissionregistration.k8s.io")).body,
    ) as {
      versions: Array<{ version: string }>;
    };

    await page.goto("/");
    await expect(page.getByTestId("server-version")).toHaveText(version.gitVersion);
    expect(version.gitVersion).toBe("v1.37.2");

    const apis = page.getByRole("region", { name: "Admission APIs served" });
    for (const v of group.versions) {
      await expect(
        apis.getByRole("cell", {
          name: new RegExp(`admissionregistration\\.k8s\\.io/${v.version}\\b`),
        }),
      ).toBeVisible();
    }
    await expect(apis.getByText("validatingadmissionpolicybindings")).toBeVisible();
    // The historical kinds the test stack serves as custom resources, and where.
    await expect(page.locator('tr[data-kind="InitializerConfiguration"]')).toContainText(
      "v1alpha1 in admission.portcullis.dev",
    );
    await expect(page.getByTestId("count-v1beta1-mutatingwebhookconfigurations")).toHaveText(
      /^\d+$/,
    );
    await expect(
      page.locator("tr", { has: page.getByTestId("count-v1beta1-mutatingwebhookconfigurations") }),
    ).toContainText("v1beta1 in admission.portcullis.dev");
    await expect(page.getByTestId("legacy-kinds-line")).toContainText(
      "InitializerConfiguration was served by Kubernetes 1.7–1.13",
    );

    const countCell = page.getByTestId("count-validatingwebhookconfigurations");
    await expect(page.getByText("live", { exact: true })).toBeVisible();
    await expect(countCell).toHaveText(/^\d+$/);
    const listed = JSON.parse(
      (
        await kube.request(
          "GET",
          "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
        )
      ).body,
    ) as { items: unknown[] };
    await expect(countCell).toHaveText(String(listed.items.length));

    // Another client creates a configuration: the count follows without a reload.
    const name = `e2e-overview-${Date.now()}`;
    const created = await kube.request(
      "POST",
      "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
      {
        metadata: { name },
        webhooks: [],
      },
    );
    expect(created.status, created.body).toBe(201);
    await expect(countCell).toHaveText(String(listed.items.length + 1), { timeout: 3000 });
    await kube.request(
      "DELETE",
      `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`,
    );
    await expect(countCell).toHaveText(String(listed.items.length), { timeout: 3000 });
    await page.screenshot({ path: "e2e/artifacts/overview.png", fullPage: true });
  });

  test("answers an address with no page, or naming no kind of object it has, with a 404 page in the dashboard's frame", async ({
    page,
  }) => {
    for (const path of ["/no-such-page", "/webhooks/no-such-kind/anything"]) {
      const res = await page.goto(path);
      expect(res?.status()).toBe(404);
      await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
      await expect(
        page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Webhooks" }),
      ).toBeVisible();
      await page.getByRole("main").getByRole("link", { name: "Overview" }).click();
      await expect(page.getByTestId("server-version")).toHaveText("v1.37.2");
    }
  });

  test("switches identity with the context switcher", async ({ page, stack }) => {
    await page.goto("/");
    const switcher = page.getByLabel("Context");
    await expect(switcher).toHaveValue(stack.contexts.admin);
    await switcher.selectOption(stack.contexts.viewer);
    await expect(page.getByRole("region", { name: "Cluster" })).toContainText("viewer");
    await expect(page.getByTestId("server-version")).toHaveText("v1.37.2");
    await page.reload();
    await expect(page.getByLabel("Context")).toHaveValue(stack.contexts.viewer);
  });
});
