import { readFileSync } from "node:fs";
import { test, expect } from "../test/e2e/fixtures";
import { httpsRequest } from "../cluster/https-json";
import type { StackInfo } from "../cluster/harness/stack";
import {
  GROUP_PATH,
  editorText,
  hook,
  setEditorText,
  uniqueName,
} from "../test/e2e/webhooks-helpers";

/** Server-side apply of `body` to `resource`/`name` as field manager `manager` (forcing). */
async function apply(
  stack: StackInfo,
  resource: string,
  kind: string,
  name: string,
  manager: string,
  body: Record<string, unknown>,
): Promise<void> {
  const res = await httpsRequest(
    `${stack.server}${GROUP_PATH}/${resource}/${name}?fieldManager=${manager}&force=true`,
    {
      method: "PATCH",
      ca: readFileSync(stack.caFile),
      token: stack.tokens.admin,
      contentType: "application/apply-patch+yaml",
      body: { apiVersion: "admissionregistration.k8s.io/v1", kind, metadata: { name }, ...body },
    },
  );
  expect([200, 201], res.body).toContain(res.status);
}

test.describe("Provenance of admission policies and fights on the lists", () => {
  test("the binding's detail page names each term's manager and flags the one another applier added", async ({
    page,
    kube,
    stack,
    cleanup,
  }) => {
    const name = uniqueName("e2e-prov-policy");
    cleanup.defer(async () => {
      await kube.request("DELETE", `${GROUP_PATH}/validatingadmissionpolicybindings/${name}`);
      await kube.request("DELETE", `${GROUP_PATH}/validatingadmissionpolicies/${name}`);
    });
    await apply(
      stack,
      "validatingadmissionpolicies",
      "ValidatingAdmissionPolicy",
      name,
      "e2e-owner",
      {
        spec: {
          failurePolicy: "Ignore",
          matchConstraints: {
            resourceRules: [
              {
                operations: ["CREATE"],
                apiGroups: ["provenance.portcullis.test"],
                apiVersions: ["v1"],
                resources: ["things"],
              },
            ],
          },
          validations: [{ expression: "true" }],
        },
      },
    );
    const B = "validatingadmissionpolicybindings";
    await apply(stack, B, "ValidatingAdmissionPolicyBinding", name, "e2e-owner", {
      spec: { policyName: name, validationActions: ["Deny"] },
    });
    // A second applier owning one validation action only.
    await apply(stack, B, "ValidatingAdmissionPolicyBinding", name, "auditor", {
      spec: { validationActions: ["Audit"] },
    });

    await page.goto(`/policies/${B}/${name}`);
    const provenance = page.getByTestId("hook-provenance");
    await expect(provenance).toContainText("Created by e2e-owner");
    await expect(provenance).toContainText("1 term was written by another manager.");
    const row = (term: string) =>
      provenance
        .getByTestId("provenance-term")
        .filter({ has: page.getByRole("cell", { name: term, exact: true }) });
    await expect(row('validationActions[="Audit"]')).toHaveAttribute("data-injected", "true");
    await expect(row('validationActions[="Audit"]')).toContainText("Injected by auditor");
    await expect(row('validationActions[="Deny"]')).toHaveAttribute("data-injected", "false");
    await expect(row("policyName")).toContainText("e2e-owner (Apply");

    // The editor warns before an edit drops the action the other applier wrote, as for a webhook.
    await page.goto(`/policies/${B}/${name}/edit`);
    const text = await editorText(page, B);
    expect(text).toMatch(/\n\s*- Audit\n/);
    const warning = page.getByTestId("provenance-warning");
    await expect(warning).toHaveCount(0);
    await setEditorText(page, B, text.replace(/\n\s*- Audit\n/, "\n"));
    await expect(page.getByTestId("error-count")).toHaveText("0 errors");
    await expect(warning).toContainText("this term is added by auditor and will come back.");
  });

  test("a reconcile fight shows as a finding row on the webhooks list and the overview, linking to the configuration", async ({
    page,
    kube,
    stack,
    cleanup,
  }) => {
    const R = "validatingwebhookconfigurations";
    const name = uniqueName("e2e-fight-list");
    const hookName = `a.${name}.example.com`;
    cleanup.defer(() => kube.request("DELETE", `${GROUP_PATH}/${R}/${name}`));
    const flip = (manager: string, timeoutSeconds: number) =>
      apply(stack, R, "ValidatingWebhookConfiguration", name, manager, {
        webhooks:
          manager === "flux"
            ? [hook(hookName, { timeoutSeconds })]
            : [{ name: hookName, timeoutSeconds }],
      });
    await flip("flux", 10);
    // The dashboard watches for fights from its start: the flips need no page open first.
    await flip("tuner", 5);
    await flip("flux", 10);
    await flip("tuner", 5);

    await page.goto("/webhooks");
    const row = page.getByTestId("fight-row").and(page.locator(`[data-name="${name}"]`));
    await expect(row).toContainText(
      `tuner and flux keep changing .webhooks[name="${hookName}"].timeoutSeconds`,
      { timeout: 10_000 },
    );
    await expect(row).toContainText("tuner ↔ flux");
    await expect(row).toContainText("3, last");

    await page.goto("/");
    const onOverview = page.getByTestId("fight-row").and(page.locator(`[data-name="${name}"]`));
    await expect(onOverview).toContainText("ValidatingWebhookConfiguration");
    await onOverview.getByRole("link", { name }).click();
    await expect(page).toHaveURL(new RegExp(`/webhooks/${R}/${name}$`));
    await expect(page.getByTestId("hook-fight")).toContainText(
      `Reconcile fight: tuner and flux keep changing .webhooks[name="${hookName}"].timeoutSeconds`,
    );

    // Once the configuration is gone, its fight is no longer a finding.
    await page.goto("/webhooks");
    await expect(row).toHaveCount(1);
    expect((await kube.request("DELETE", `${GROUP_PATH}/${R}/${name}`)).status).toBe(200);
    await expect(row).toHaveCount(0);
  });
});
