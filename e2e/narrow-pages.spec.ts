/**
 * Every page beside the webhook pages (see webhooks-keyboard-narrow.spec.ts) on a phone-sized
 * window (390x844): no page is wider than the window, so no control, link or column sits off to
 * the side where an admin on a phone cannot reach it.
 */
import { test, expect } from "../test/e2e/fixtures";
import { GROUP_PATH, uniqueName } from "../test/e2e/webhooks-helpers";

test.describe("Pages on a phone (390x844)", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  for (const path of [
    "/policies",
    "/policies/new",
    "/namespaces",
    "/deadlocks",
    "/health",
    "/predict",
    "/decisions",
    "/initializers",
  ]) {
    test(`${path} is no wider than the window`, async ({ page }) => {
      await page.goto(path);
      await expect(page.locator("main h1").first()).toBeVisible();
      await expect(page.locator('[aria-busy="true"]')).toHaveCount(0, { timeout: 15_000 });
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `${path} is ${width}px wide in a 390px window`).toBeLessThanOrEqual(390);
    });
  }

  test("a policy's page and its binding's page are no wider than the window", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-narrow-policy");
    const made = [
      await kube.request("POST", `${GROUP_PATH}/validatingadmissionpolicies`, {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingAdmissionPolicy",
        metadata: { name },
        spec: {
          failurePolicy: "Fail",
          matchConstraints: {
            resourceRules: [
              {
                operations: ["CREATE"],
                apiGroups: ["apps"],
                apiVersions: ["v1"],
                resources: ["deployments"],
              },
            ],
          },
          validations: [{ expression: "has(object.metadata.labels)", message: "needs labels" }],
        },
      }),
      await kube.request("POST", `${GROUP_PATH}/validatingadmissionpolicybindings`, {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingAdmissionPolicyBinding",
        metadata: { name: `${name}-binding` },
        spec: {
          policyName: name,
          validationActions: ["Warn", "Audit"],
          matchResources: { namespaceSelector: { matchLabels: { [`${name}/never`]: "x" } } },
        },
      }),
    ];
    expect(made.map((r) => r.status)).toEqual([201, 201]);
    cleanup.defer(async () => {
      await kube.request(
        "DELETE",
        `${GROUP_PATH}/validatingadmissionpolicybindings/${name}-binding`,
      );
      await kube.request("DELETE", `${GROUP_PATH}/validatingadmissionpolicies/${name}`);
    });
    for (const path of [
      `/policies/validatingadmissionpolicies/${name}`,
      `/policies/validatingadmissionpolicybindings/${name}-binding`,
    ]) {
      await page.goto(path);
      await expect(
        page.getByRole("heading", { name: "Recent decisions", exact: true }),
      ).toBeVisible();
      await expect(page.locator('[aria-busy="true"]')).toHaveCount(0, { timeout: 15_000 });
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `${path} is ${width}px wide in a 390px window`).toBeLessThanOrEqual(390);
    }
  });

  test("/predict: every operation is on screen and can be chosen", async ({ page }) => {
    await page.goto("/predict");
    const ops = page.getByRole("radiogroup", { name: "Operation" }).getByRole("radio");
    await expect(ops).toHaveCount(4);
    for (const op of await ops.all()) {
      const box = await op.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= 390, `${await op.textContent()}`).toBe(true);
    }
    await page.getByRole("radio", { name: "CONNECT" }).click();
    await expect(page.getByRole("radio", { name: "CONNECT" })).toHaveAttribute(
      "aria-checked",
      "true",
    );
  });
});
