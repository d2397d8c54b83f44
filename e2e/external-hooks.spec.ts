/**
 * ExternalAdmissionHookConfiguration (1.7–1.8) end to end, served by the test stack as a CRD in
 * admission.portcullis.dev: discovery, list with defaults, live update, create with validation,
 * update with conflict and delete, each read back from the apiserver.
 */
import { test, expect, type Kube } from "../test/e2e/fixtures";
import { uniqueName } from "../test/e2e/webhooks-helpers";

const PATH = "/apis/admission.portcullis.dev/v1alpha1/externaladmissionhookconfigurations";

interface Stored {
  metadata: { name: string; resourceVersion: string; uid: string };
  externalAdmissionHooks?: Array<{ name: string; failurePolicy?: string }>;
}

function hook(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    clientConfig: { service: { namespace: "hooks", name: "deny" }, caBundle: "Y2E=" },
    rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
    ...extra,
  };
}

async function get(kube: Kube, name: string): Promise<Stored | undefined> {
  const res = await kube.request("GET", `${PATH}/${name}`);
  if (res.status === 404) return undefined;
  expect(res.status, res.body).toBe(200);
  return JSON.parse(res.body) as Stored;
}

test("external admission hooks: list, live, create, conflict, delete", async ({
  page,
  kube,
  cleanup,
}) => {
  const id = uniqueName("e2e-eahc");
  const seeded = `s-${id}`;
  const created = `n-${id}`;
  cleanup.defer(async () => {
    await kube.request("DELETE", `${PATH}/${seeded}`);
    await kube.request("DELETE", `${PATH}/${created}`);
  });
  await page.goto("/");
  await page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: "External hooks" })
    .click();
  await expect(page).toHaveURL(/\/external-admission-hooks$/);
  await expect(page.getByText("live", { exact: true })).toBeVisible();
  // Live: created behind the page's back; the unset failurePolicy shows its default.
  const res = await kube.request("POST", PATH, {
    apiVersion: "admission.portcullis.dev/v1alpha1",
    kind: "ExternalAdmissionHookConfiguration",
    metadata: { name: seeded },
    externalAdmissionHooks: [hook(`a.${id}.example.com`)],
  });
  expect(res.status, res.body).toBe(201);
  const row = page.getByTestId(`hook-row-a.${id}.example.com`);
  await expect(row).toContainText("Ignore default");
  await expect(row).toContainText("svc hooks/deny");
  await expect(row).toContainText("CREATE of pods");
  await page.screenshot({ path: "e2e/artifacts/external-hooks.png", fullPage: true });

  // Create through the editor: an invalid failurePolicy is refused before any write.
  await page.getByRole("button", { name: "New configuration" }).click();
  const editor = page.getByRole("region", { name: "New ExternalAdmissionHookConfiguration" });
  const field = editor.getByLabel("YAML of the new configuration");
  const yaml = (fp: string) =>
    `apiVersion: admission.portcullis.dev/v1alpha1\nkind: ExternalAdmissionHookConfiguration\nmetadata:\n  name: ${created}\nexternalAdmissionHooks:\n  - name: b.${id}.example.com\n    clientConfig:\n      service: {namespace: hooks, name: b}\n      caBundle: Y2E=\n    rules:\n      - operations: [CREATE]\n        apiGroups: [""]\n        apiVersions: [v1]\n        resources: [configmaps]\n    failurePolicy: ${fp}\n`;
  await field.fill(yaml("Sometimes"));
  await expect(editor.getByRole("list", { name: "Validation errors" })).toContainText(
    'Unsupported value: "Sometimes"',
  );
  await field.fill(yaml("Fail"));
  await editor.getByRole("button", { name: "Create" }).click();
  await expect
    .poll(async () => (await get(kube, created))?.externalAdmissionHooks?.[0]?.failurePolicy)
    .toBe("Fail");

  // Update with conflict.
  const config = page.getByTestId(`config-${created}`);
  await config.getByRole("button", { name: "Edit YAML" }).click();
  const edit = config.getByRole("region", { name: `Edit ${created}` });
  const text = edit.getByLabel(`YAML of ${created}`);
  const stored = (await get(kube, created)) as Stored;
  const theirs = await kube.request("PUT", `${PATH}/${created}`, {
    ...stored,
    metadata: { ...stored.metadata, labels: { touched: "yes" } },
  });
  expect(theirs.status, theirs.body).toBe(200);
  await text.fill(
    (await text.inputValue()).replace("failurePolicy: Fail", "failurePolicy: Ignore"),
  );
  await edit.getByRole("button", { name: `Apply to ${created}` }).click();
  await expect(edit.getByRole("alert")).toContainText("409");
  expect((await get(kube, created))?.externalAdmissionHooks?.[0]?.failurePolicy).toBe("Fail");

  // Delete.
  await config.getByRole("button", { name: "Delete…" }).click();
  const confirm = config.getByRole("dialog", { name: "Confirm delete" });
  await confirm.getByLabel("Type the name to confirm").fill(created);
  await confirm.getByRole("button", { name: `Delete ${created}` }).click();
  await expect.poll(async () => get(kube, created)).toBeUndefined();
});
