/**
 * InitializerConfiguration end to end: the test stack serves the historical shape as a CRD in
 * admission.portcullis.dev (cluster/legacy-crds.ts); discovery, list, live update, create,
 * update with conflict, reorder, safe rename and delete are driven in Chromium and read back
 * from the apiserver.
 */
import type { Page } from "@playwright/test";
import { test, expect, type Kube } from "../test/e2e/fixtures";
import { uniqueName } from "../test/e2e/webhooks-helpers";

const PATH = "/apis/admission.portcullis.dev/v1alpha1/initializerconfigurations";

interface StoredInit {
  metadata: { name: string; resourceVersion: string; uid: string };
  initializers?: Array<{ name: string }>;
}

const configmaps = { apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] };

async function create(kube: Kube, name: string, inits: string[]): Promise<StoredInit> {
  const res = await kube.request("POST", PATH, {
    apiVersion: "admission.portcullis.dev/v1alpha1",
    kind: "InitializerConfiguration",
    metadata: { name },
    initializers: inits.map((n) => ({ name: n, rules: [configmaps] })),
  });
  expect(res.status, res.body).toBe(201);
  return JSON.parse(res.body) as StoredInit;
}

async function get(kube: Kube, name: string): Promise<StoredInit | undefined> {
  const res = await kube.request("GET", `${PATH}/${name}`);
  if (res.status === 404) return undefined;
  expect(res.status, res.body).toBe(200);
  return JSON.parse(res.body) as StoredInit;
}

async function remove(kube: Kube, name: string): Promise<void> {
  await kube.request("DELETE", `${PATH}/${name}`);
}

const names = (o: StoredInit | undefined) => o?.initializers?.map((i) => i.name);

async function orderedRows(page: Page): Promise<string[]> {
  return page
    .getByRole("table", { name: "Initializers in merged order" })
    .locator("tbody tr")
    .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-testid") ?? ""));
}

test.describe("Initializers", () => {
  test("discovery puts the page in the navigation; the list is merged in order and live", async ({
    page,
    kube,
    cleanup,
  }) => {
    const id = uniqueName("e2e-init");
    const b = `b-${id}`;
    const a = `a-${id}`;
    cleanup.defer(async () => {
      await remove(kube, a);
      await remove(kube, b);
    });
    await create(kube, b, [`one.${id}.example.com`, `two.${id}.example.com`]);
    await page.goto("/");
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Initializers" })
      .click();
    await expect(page).toHaveURL(/\/initializers$/);
    await expect(page.getByText("live", { exact: true })).toBeVisible();
    // The test stack serves the kind from its own group, and the page says so.
    await expect(page.getByTestId("legacy-group-label")).toContainText(
      "historical API · served locally from the legacy group admission.portcullis.dev",
    );
    await expect(page.getByTestId(`init-row-one.${id}.example.com`)).toBeVisible();
    await expect(page.getByTestId(`init-row-one.${id}.example.com`)).toContainText(
      "creation of configmaps in the core group",
    );
    // Created behind the page's back: the watch brings it, sorted before b by name.
    await create(kube, a, [`zero.${id}.example.com`]);
    await expect(page.getByTestId(`init-row-zero.${id}.example.com`)).toBeVisible();
    const mine = (await orderedRows(page)).filter((r) => r.includes(id));
    expect(mine).toEqual([
      `init-row-zero.${id}.example.com`,
      `init-row-one.${id}.example.com`,
      `init-row-two.${id}.example.com`,
    ]);
    // The pending list a new configmap gets, in the same order.
    const preview = page.getByRole("region", { name: "What a new object gets" });
    await preview.getByLabel("Resource").fill("configmaps");
    await expect(preview.getByTestId("pending-list")).toContainText(
      `zero.${id}.example.com → one.${id}.example.com → two.${id}.example.com`,
    );
    await page.screenshot({ path: "e2e/artifacts/initializers.png", fullPage: true });
  });

  test("create, update with conflict, reorder, safe rename and delete", async ({
    page,
    kube,
    cleanup,
  }) => {
    const id = uniqueName("e2e-initw");
    const name = `c-${id}`;
    const [x, y] = [`x.${id}.example.com`, `y.${id}.example.com`];
    cleanup.defer(async () => {
      await remove(kube, name);
      await remove(kube, `0-${id}`);
    });
    await page.goto("/initializers");
    await expect(page.getByText("live", { exact: true })).toBeVisible();
    await page.getByRole("button", { name: "New configuration" }).click();
    const editor = page.getByRole("region", { name: "New InitializerConfiguration" });
    const yaml = (inits: string) =>
      `apiVersion: admission.portcullis.dev/v1alpha1\nkind: InitializerConfiguration\nmetadata:\n  name: ${name}\ninitializers:\n${inits}`;
    // lib/admission's checks as the old apiserver made them: not fully qualified, subresource.
    await editor
      .getByLabel("YAML of the new configuration")
      .fill(
        yaml(
          `  - name: short\n    rules:\n      - apiGroups: [""]\n        apiVersions: ["v1"]\n        resources: ["pods/status"]\n`,
        ),
      );
    const problems = editor.getByRole("list", { name: "Validation errors" });
    await expect(problems).toContainText("initializers[0].name");
    await expect(problems).toContainText("must not specify subresources");
    await expect(editor.getByRole("button", { name: "Create" })).toBeDisabled();
    const rule = `    rules:\n      - apiGroups: [""]\n        apiVersions: ["v1"]\n        resources: ["configmaps"]\n`;
    await editor
      .getByLabel("YAML of the new configuration")
      .fill(yaml(`  - name: ${x}\n${rule}  - name: ${y}\n${rule}`));
    await expect(problems).toHaveCount(0);
    await editor.getByRole("button", { name: "Dry run" }).click();
    await expect(editor.getByLabel("Dry run result")).toBeVisible();
    expect(await get(kube, name)).toBeUndefined();
    await editor.getByRole("button", { name: "Create" }).click();
    await expect.poll(async () => names(await get(kube, name))).toEqual([x, y]);

    // Update with conflict: the editor holds the version it opened; someone else writes first.
    const config = page.getByTestId(`config-${name}`);
    await expect(config).toBeVisible();
    await config.getByRole("button", { name: "Edit YAML" }).click();
    const edit = config.getByRole("region", { name: `Edit ${name}` });
    const field = edit.getByLabel(`YAML of ${name}`);
    const stored = (await get(kube, name)) as StoredInit;
    const theirs = await kube.request("PUT", `${PATH}/${name}`, {
      ...stored,
      initializers: [...(stored.initializers ?? []), { name: `z.${id}.example.com` }],
    });
    expect(theirs.status, theirs.body).toBe(200);
    await field.fill((await field.inputValue()).replace(`name: ${y}`, `name: w.${id}.example.com`));
    await edit.getByRole("button", { name: `Apply to ${name}` }).click();
    await expect(edit.getByRole("alert")).toContainText("409");
    expect(names(await get(kube, name))).toEqual([x, y, `z.${id}.example.com`]);
    await edit.getByRole("button", { name: "Close" }).click();

    // Reorder within the configuration: y before x, shown as a diff first.
    const handle = config.getByRole("button", {
      name: new RegExp(`^y\\.${id}\\.example\\.com, position 2`),
    });
    await expect(handle).toBeEnabled();
    await handle.focus();
    await page.keyboard.press("Alt+ArrowUp");
    const diff = config.getByLabel(`New order of ${name}`);
    await expect(diff).toBeVisible();
    expect(names(await get(kube, name))).toEqual([x, y, `z.${id}.example.com`]);
    await diff.getByRole("button", { name: `Save order of ${name}` }).click();
    await expect
      .poll(async () => names(await get(kube, name)))
      .toEqual([y, x, `z.${id}.example.com`]);
    await expect(page.getByTestId(`init-row-${y}`)).toContainText("#1");

    // Safe rename moves the whole configuration in the merged order.
    const renamed = `0-${id}`;
    await config.getByRole("button", { name: `Rename ${name}` }).click();
    const rename = config.getByRole("group", { name: `Rename ${name}` });
    await rename.getByLabel("New name").fill(renamed);
    await rename.getByRole("button", { name: "Rename safely" }).click();
    await expect
      .poll(async () => names(await get(kube, renamed)))
      .toEqual([y, x, `z.${id}.example.com`]);
    // The old name goes last (create, verify, then delete).
    await expect.poll(async () => get(kube, name)).toBeUndefined();
    await expect(page.getByRole("status").filter({ hasText: `Renamed ${name}` })).toBeVisible();

    // Delete with typed confirmation and preconditions.
    const moved = page.getByTestId(`config-${renamed}`);
    await moved.getByRole("button", { name: "Delete…" }).click();
    const confirm = moved.getByRole("dialog", { name: "Confirm delete" });
    await confirm.getByLabel("Type the name to confirm").fill(renamed);
    await confirm.getByRole("button", { name: `Delete ${renamed}` }).click();
    await expect.poll(async () => get(kube, renamed)).toBeUndefined();
    await expect(page.getByTestId(`config-${renamed}`)).toHaveCount(0);
  });

  test("Predict shows the pending list a new object gets", async ({ page, kube, cleanup }) => {
    const id = uniqueName("e2e-initp");
    const name = `p-${id}`;
    cleanup.defer(async () => {
      await remove(kube, name);
    });
    await create(kube, name, [`first.${id}.example.com`, `second.${id}.example.com`]);
    await page.goto("/predict");
    await expect(page.getByTestId("verdict")).toBeVisible();
    await page
      .getByLabel("Object", { exact: true })
      .fill(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: default\ndata:\n  k: v\n",
      );
    await expect(page.getByTestId("initializers")).toContainText(
      `first.${id}.example.com, second.${id}.example.com`,
    );
  });
});
