/**
 * Shared mode in Chromium: admins sign in with their own bearer tokens on /sign-in and act as
 * themselves. A viewer sees the pages but every write control is off, and a write sent from the
 * page anyway is refused by the apiserver (403; the object read back unchanged); an editor
 * deletes through the UI (read back: gone). Sign-out ends the session.
 */
import type { Page } from "@playwright/test";
import { test, expect } from "../test/e2e/fixtures";
import { serious } from "../test/e2e/axe";
import { startSharedDashboard, type SharedDashboard } from "../cluster/harness/shared-dashboard";
import { readStack } from "../cluster/harness/stack";
import {
  createConfig,
  deleteConfig,
  getConfig,
  hook,
  uniqueName,
} from "../test/e2e/webhooks-helpers";

const V = "validatingwebhookconfigurations" as const;

let d: SharedDashboard;
test.describe.configure({ mode: "serial" });
test.beforeAll(async () => {
  d = await startSharedDashboard(readStack());
});
test.afterAll(async () => {
  await d?.stop();
});

async function signIn(page: Page, token: string, user: string): Promise<void> {
  await page.goto(`${d.url}/webhooks`);
  await expect(page).toHaveURL(`${d.url}/sign-in`);
  const field = page.getByLabel("Bearer token");
  await expect(field).toHaveAttribute("type", "password");
  await field.fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${d.url}/`);
  await expect(page.getByRole("banner")).toContainText(`Signed in as ${user}`);
  // The token is nowhere in the page, and the session cookie is out of JavaScript's reach.
  expect(await page.content()).not.toContain(token);
  expect(await page.evaluate(() => document.cookie)).not.toContain("portcullis-session");
}

test("a viewer signs in, reads, and cannot write: controls off, the apiserver says 403", async ({
  page,
  kube,
  stack,
  cleanup,
}) => {
  const name = uniqueName("e2e-shared-viewer");
  cleanup.defer(async () => {
    await deleteConfig(kube, V, name);
  });
  const created = await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
  await signIn(page, stack.tokens.viewer, "viewer");
  expect(await serious(page)).toEqual([]);
  await page.goto(`${d.url}/webhooks?q=${name}`);
  await expect(
    page.locator(`[data-row-id="ValidatingWebhookConfiguration/${name}/0"]`),
  ).toBeVisible();
  await expect(page.getByRole("button", { name: "New from template" })).toBeDisabled();
  await page.goto(`${d.url}/webhooks/${V}/${name}`);
  await expect(page.getByTestId("read-only")).toBeVisible();
  await expect(page.getByRole("button", { name: "Delete…" })).toBeDisabled();

  // The same write the editor would send, from this page, with this session.
  const answer = await page.evaluate(
    async ({ url, object }) => {
      const res = await fetch(url, {
        method: "PUT",
        headers: { "content-type": "application/json", "x-portcullis-context": "shared" },
        body: JSON.stringify({ object }),
      });
      return { status: res.status, body: (await res.json()) as { message: string } };
    },
    {
      url: `/api/webhooks/${V}/${name}`,
      object: { ...created, webhooks: [{ ...created.webhooks?.[0], timeoutSeconds: 3 }] },
    },
  );
  expect(answer.status).toBe(403);
  expect(answer.body.message).toContain('"viewer"');
  const after = await getConfig(kube, V, name);
  expect(after?.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
});

test("an editor signs in and deletes through the UI; sign-out ends the session", async ({
  page,
  kube,
  stack,
  cleanup,
}) => {
  const name = uniqueName("e2e-shared-editor");
  cleanup.defer(async () => {
    await deleteConfig(kube, V, name);
  });
  await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
  await signIn(page, stack.tokens.editor, "editor");
  await page.goto(`${d.url}/webhooks/${V}/${name}`);
  await page.getByRole("button", { name: "Delete…" }).click();
  const dialog = page.getByRole("dialog", { name: "Confirm delete" });
  await dialog.getByLabel("Type the name to confirm").fill(name);
  await dialog.getByRole("button", { name: `Delete ${name}` }).click();
  await expect(page).toHaveURL(`${d.url}/webhooks`);
  expect(await getConfig(kube, V, name)).toBeUndefined();

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(`${d.url}/sign-in`);
  await page.goto(`${d.url}/webhooks`);
  await expect(page).toHaveURL(`${d.url}/sign-in`);
});

test("a wrong token is refused on the sign-in page", async ({ page }) => {
  await page.goto(`${d.url}/sign-in`);
  await page.getByLabel("Bearer token").fill("not-a-real-token");
  await page.getByRole("button", { name: "Sign in" }).click();
  const alert = page.getByRole("alert").filter({ hasText: "Refused" });
  await expect(alert).toContainText("the apiserver does not accept this token");
  await expect(alert).toContainText("kubectl create token");
  expect(await serious(page)).toEqual([]);
  await expect(page).toHaveURL(`${d.url}/sign-in`);
});
