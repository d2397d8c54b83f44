/**
 * Hooks and policies the apiserver loads from its static manifest directories (the local control
 * plane's, which the stack's dashboard is given): listed beside the API's objects marked static
 * with their file, first in the call order, and read-only on their pages and in the editor, for the
 * reason the apiserver gives — its API refuses their reserved names.
 */
import { test, expect } from "../test/e2e/fixtures";
import { uniqueName } from "../test/e2e/webhooks-helpers";
import { STATIC_SCOPE_LABEL } from "../cluster/harness/static-manifests";

/** Nothing listens on port 1: a call is refused at once, and failurePolicy Ignore lets it pass. */
const NOWHERE = "https://127.0.0.1:1/hooks/e2e-static";

const V = "validatingwebhookconfigurations";

test.describe("Static hooks and policies", () => {
  test("are listed marked static, first in the call order, and read-only with their file", async ({
    page,
    kube,
    staticManifests,
  }) => {
    const name = `${uniqueName("e2e")}.static.k8s.io`;
    const file = `${uniqueName("e2e-file")}.yaml`;
    await staticManifests.write("ValidatingAdmissionWebhook", file, [
      {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name },
        webhooks: [
          {
            name: "e2e-static.portcullis.dev",
            clientConfig: { url: NOWHERE },
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
            failurePolicy: "Ignore",
            objectSelector: { matchLabels: { [STATIC_SCOPE_LABEL]: "on" } },
            rules: [
              {
                operations: ["CREATE"],
                apiGroups: [""],
                apiVersions: ["v1"],
                resources: ["configmaps"],
              },
            ],
          },
        ],
      },
    ]);
    // Invisible to the API: absent from its list, 404 on GET.
    const get = await kube.request("GET", `/apis/admissionregistration.k8s.io/v1/${V}/${name}`);
    expect(get.status).toBe(404);

    // The list: the static configuration's row, marked static.
    await page.goto(`/webhooks?q=${encodeURIComponent(name)}`);
    const row = page.getByRole("row").filter({ hasText: name });
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId("static-badge")).toHaveText("static");

    // Its page: read-only, with its file, without edit, duplicate or delete.
    await row.getByRole("link", { name, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/webhooks/${V}/${name.replace(/\./g, "\\.")}$`));
    const view = page.getByTestId("static-object");
    await expect(view.getByTestId("static-badge")).toBeVisible();
    await expect(view.getByText(file, { exact: true })).toBeVisible();
    await expect(page.getByTestId("static-read-only")).toContainText(
      "refuses to every create, update and delete through the API",
    );
    await expect(page.getByTestId("static-read-only")).toContainText(file);
    await expect(page.getByTestId("static-yaml")).toContainText("e2e-static.portcullis.dev");
    // Its health card, as an API hook's page has it, from the same report.
    await expect(
      view.getByRole("group", { name: "Health of e2e-static.portcullis.dev" }),
    ).toBeVisible({ timeout: 20_000 });
    await expect(page.getByRole("button", { name: /Delete/ })).toHaveCount(0);
    await expect(page.getByRole("link", { name: "Edit YAML" })).toHaveCount(0);

    // The editor's route: the same read-only view, no editor to type in.
    await page.goto(`/webhooks/${V}/${encodeURIComponent(name)}/edit`);
    await expect(page.getByTestId("static-read-only")).toBeVisible();
    await expect(page.getByRole("link", { name: "Back to the object" })).toBeVisible();
    await expect(page.locator(".monaco-editor")).toHaveCount(0);
    await expect(page.getByRole("button", { name: /Apply|Save|Dry run/ })).toHaveCount(0);

    // The reason, from the apiserver itself: a write of the reserved name through the API fails.
    const refused = await kube.request("POST", `/apis/admissionregistration.k8s.io/v1/${V}`, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: `${uniqueName("api")}.static.k8s.io` },
      webhooks: [],
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toContain(".static.k8s.io");

    // Call order: the static configurations first among the validating webhooks, read-only.
    await page.goto("/webhooks/order");
    const stage = page.getByRole("region", { name: /Validating webhooks/ });
    const item = stage.getByTestId(`config-${name}`);
    await expect(item).toHaveAttribute("data-static", "true");
    await expect(item.getByTestId("static-badge")).toBeVisible();
    await expect(item.getByRole("button", { name: /Rename/ })).toHaveCount(0);
    const positions = await stage
      .locator("[data-testid^='config-']")
      .evaluateAll((els) =>
        els.map((e) => [e.getAttribute("data-static"), Number(e.getAttribute("data-position"))]),
      );
    const lastStatic = Math.max(
      ...positions.filter((p) => p[0] === "true").map((p) => p[1] as number),
    );
    const firstApi = Math.min(
      ...positions.filter((p) => p[0] !== "true").map((p) => p[1] as number),
    );
    expect(lastStatic).toBeLessThan(firstApi);
  });

  test("static policies are listed marked static and open read-only", async ({ page }) => {
    await page.goto("/policies");
    const policies = page.getByRole("table", { name: "Policies table" });
    const row = policies.getByRole("row").filter({ hasText: "seed.static.k8s.io" });
    // The seed set holds one validating and one mutating policy.
    await expect(row).toHaveCount(2);
    await expect(row.first().getByTestId("static-badge")).toBeVisible();
    const bindings = page.getByRole("table", { name: "Bindings table" });
    await expect(
      bindings
        .getByRole("row")
        .filter({ hasText: "seed.static.k8s.io" })
        .first()
        .getByTestId("static-badge"),
    ).toBeVisible();

    await page.goto("/policies/validatingadmissionpolicies/seed.static.k8s.io/edit");
    await expect(page.getByTestId("static-read-only")).toContainText("00-seed.yaml");
    await expect(page.getByTestId("static-yaml")).toContainText("denied by the static seed policy");
    await expect(page.locator(".monaco-editor")).toHaveCount(0);
  });
});
