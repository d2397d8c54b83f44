/**
 * The webhook detail page and the list run the lint checks that need live state too: a hook whose
 * Service does not exist is reported (L7), which the configuration alone cannot tell.
 */
import { test, expect } from "../test/e2e/fixtures";
import {
  createConfig,
  deleteConfig,
  getConfig,
  hook,
  uniqueName,
} from "../test/e2e/webhooks-helpers";
import { lintConfigurations } from "../lib/webhooks/findings";
import { LINT_STATE_REREAD_MS } from "../lib/queries/webhooks";
import type { V1ValidatingWebhookConfiguration } from "../lib/k8s/types";

test("a hook backed by a missing Service is reported on its detail page and counted in the list", async ({
  page,
  kube,
  cleanup,
}) => {
  const name = uniqueName("lint-live");
  const svc = `${name}-svc`;
  cleanup.defer(async () => {
    await deleteConfig(kube, "validatingwebhookconfigurations", name);
  });
  await createConfig(kube, "validatingwebhookconfigurations", name, [
    hook(`h.${name}.example.com`, {
      failurePolicy: "Ignore",
      clientConfig: { service: { namespace: "default", name: svc, port: 443 } },
    }),
  ]);
  // The Service really is absent.
  expect((await kube.request("GET", `/api/v1/namespaces/default/services/${svc}`)).status).toBe(
    404,
  );
  await page.goto(`/webhooks/validatingwebhookconfigurations/${name}`);
  await expect(page.getByTestId("lint-mode")).toContainText("the live ones");
  // The live checks assumed the cluster's own minor (its /version), and say so.
  await expect(page.getByTestId("lint-minor")).toContainText("(the cluster's version)");
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
  await expect(page.getByTestId("lint-minor")).toContainText("(the cluster's version)");
  const row = page.locator(`[data-row-id="ValidatingWebhookConfiguration/${name}/0"]`);
  await expect(row.locator(".sev-high")).toHaveText("1 H");
});

test("a hook added with the page open is judged by its own Service, and a Service deleted meanwhile is seen within the re-reads", async ({
  page,
  kube,
  cleanup,
}) => {
  test.setTimeout(120_000);
  const name = uniqueName("lint-added");
  const svc = `${name}-svc`;
  const servicePath = `/api/v1/namespaces/default/services/${svc}`;
  // An ExternalName Service: it has a finding of its own (medium), and needs no endpoints.
  const created = await kube.request("POST", "/api/v1/namespaces/default/services", {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: svc },
    spec: { type: "ExternalName", externalName: "backend.example.com" },
  });
  expect(created.status).toBe(201);
  cleanup.defer(async () => {
    await deleteConfig(kube, "validatingwebhookconfigurations", name);
    await kube.request("DELETE", servicePath);
  });
  // The page's timers run on a clock the test moves on: the re-reads come without waiting.
  await page.clock.install();
  // The live state is read before the configuration exists.
  await page.goto(`/webhooks?q=${name}`);
  await expect(page.getByTestId("lint-mode")).toContainText("the live ones included");
  await createConfig(kube, "validatingwebhookconfigurations", name, [
    hook(`h.${name}.example.com`, {
      failurePolicy: "Ignore",
      clientConfig: { service: { namespace: "default", name: svc, port: 443 } },
    }),
  ]);
  const row = page.locator(`[data-row-id="ValidatingWebhookConfiguration/${name}/0"]`);
  // To its detail page in the same tab (the query cache is kept): its Service is read, not
  // reported missing from an answer that never looked for it.
  await row.getByRole("link", { name, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/webhooks/validatingwebhookconfigurations/${name}`));
  const panel = page.getByRole("region", { name: `Hook h.${name}.example.com` });
  await expect(panel).toContainText("ExternalName webhook service");
  await expect(panel).not.toContainText("Webhook service missing");
  // Its backend as the apiserver resolves an ExternalName Service: the name and the hook's
  // port, with no Service port or endpoints to check.
  await expect(panel).toContainText("called at backend.example.com:443");
  await expect(panel).not.toContainText("is not served");

  // The Service deleted with the page open (nothing the page watches changes): reported
  // within the lint state's re-read.
  expect((await kube.request("DELETE", servicePath)).status).toBe(200);
  await page.clock.fastForward(LINT_STATE_REREAD_MS);
  await expect(panel).toContainText("Webhook service missing", { timeout: 45_000 });
  await expect(panel).not.toContainText("ExternalName webhook service");
  // The backend facts beside the finding say so too.
  await expect(panel.locator("dd", { hasText: `default/${svc}:443` })).toContainText("not found");
});
