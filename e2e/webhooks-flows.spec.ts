/**
 * Two admins at once, through the pages that write without the editor: a delete confirmation
 * that stays open while someone else changes the configuration deletes nothing they did not see.
 */
import { test, expect } from "./fixtures";
import {
  createConfig,
  deleteConfig,
  getConfig,
  GROUP_PATH,
  hook,
  uniqueName,
} from "./webhooks-helpers";

const V = "validatingwebhookconfigurations" as const;

test.describe("Concurrent changes outside the editor", () => {
  test("a delete confirmation open while the configuration changes is held until the new version is confirmed", async ({
    page,
    kube,
  }) => {
    const name = uniqueName("e2e-del-held");
    const made = await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    try {
      await page.goto(`/webhooks/${V}/${name}`);
      await page.getByRole("button", { name: "Delete…" }).click();
      const dialog = page.getByRole("dialog", { name: "Confirm delete" });
      await dialog.getByLabel("Type the name to confirm").fill(name);
      const confirm = dialog.getByRole("button", { name: `Delete ${name}` });
      await expect(confirm).toBeEnabled();

      // Another admin changes it meanwhile; the live page receives the new version.
      const edited = structuredClone(made);
      (edited.webhooks?.[0] as Record<string, unknown>).failurePolicy = "Ignore";
      const res = await kube.request("PUT", `${GROUP_PATH}/${V}/${name}`, edited);
      expect(res.status).toBe(200);
      const changed = JSON.parse(res.body) as { metadata: { resourceVersion: string } };
      const held = dialog.getByRole("alert");
      await expect(held).toContainText(
        `resourceVersion ${made.metadata.resourceVersion} → ${changed.metadata.resourceVersion}`,
      );
      await expect(confirm).toBeDisabled();
      expect((await getConfig(kube, V, name))?.webhooks?.[0]?.failurePolicy).toBe("Ignore");

      // Confirming the current version asks for the name again, then deletes that version.
      await held.getByRole("button", { name: "Confirm the current version" }).click();
      await expect(dialog.getByRole("alert")).toHaveCount(0);
      await expect(confirm).toBeDisabled();
      await dialog.getByLabel("Type the name to confirm").fill(name);
      await confirm.click();
      await expect(page).toHaveURL(/\/webhooks$/);
      await expect.poll(async () => getConfig(kube, V, name)).toBeUndefined();
    } finally {
      await deleteConfig(kube, V, name);
    }
  });
});
