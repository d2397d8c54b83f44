/**
 * The webhook detail page and the list run the lint checks that need live state too: a hook whose
 * Service does not exist is reported (L7), which the configuration alone cannot tell.
 */
import { test, expect } from "./fixtures";
import { createConfig, deleteConfig, getConfig, hook, uniqueName } from "./webhooks-helpers";
import { lintConfigurations } from "../lib/webhooks/findings";
import type { V1ValidatingWebhookConfiguration } from "../lib/k8s/types";

test("a hook backed by a missing Service is reported on its detail page and counted in the list", async ({
  page,
  kube,
}) => {
  const name = uniqueName("lint-live");
  const svc = `${name}-svc`;
  await createConfig(kube, "validatingwebhookconfigurations", name, [
    hook(`h.${name}.example.com`, {
      failurePolicy: "Ignore",
      clientConfig: { service: { namespace: "default", name: svc, port: 443 } },
    }),
  ]);
  try {
    // The Service really is absent.
    expect((await kube.request("GET", `/api/v1/namespaces/default/services/${svc}`)).status).toBe(
      404,
    );
    await page.goto(`/webhooks/validatingwebhookconfigurations/${name}`);
    await expect(page.getByTestId("lint-mode")).toContainText("the live ones");
    const panel = page.getByRole("region", { name: `Hook h.${name}.example.com` });
    await expect(panel).toContainText("Webhook service missing");
    await expect(panel).toContainText(
      `calls service default/${svc}:443; the backend Service does not exist`,
    );

    // The list counts it too (high: the hook fails open), which its offline checks cannot.
    const stored = (await getConfig(
      kube,
      "validatingwebhookconfigurations",
      name,
    )) as V1ValidatingWebhookConfiguration;
    expect(
      lintConfigurations([], [stored]).filter(
        (f) => f.severity === "high" || f.severity === "critical",
      ),
    ).toEqual([]);
    await page.goto(`/webhooks?q=${name}`);
    await expect(page.getByTestId("lint-mode")).toContainText("the live ones included");
    const row = page.locator(`[data-row-id="ValidatingWebhookConfiguration/${name}/0"]`);
    await expect(row.locator(".sev-high")).toHaveText("1 H");
  } finally {
    await deleteConfig(kube, "validatingwebhookconfigurations", name);
  }
});
