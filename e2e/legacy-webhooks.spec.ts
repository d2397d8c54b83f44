/**
 * v1beta1 Mutating/ValidatingWebhookConfiguration (1.9–1.21) end to end, served by the test stack
 * as custom resources in admission.portcullis.dev: the navigation link from discovery, the list
 * with the v1beta1 defaults against v1's, create with the v1beta1 validation and a dry run, an
 * update refused with 409 when someone else wrote first, reorder, delete — each read back from
 * the apiserver — plus their sections in the call order and in Predict, and the viewer's
 * read-only buttons on every historical page.
 */
import { test, expect, type Kube } from "../test/e2e/fixtures";
import { uniqueName } from "../test/e2e/webhooks-helpers";

const GROUP = "admission.portcullis.dev";
const MWC = `/apis/${GROUP}/v1beta1/mutatingwebhookconfigurations`;
const VWC = `/apis/${GROUP}/v1beta1/validatingwebhookconfigurations`;
const EAHC = `/apis/${GROUP}/v1alpha1/externaladmissionhookconfigurations`;

interface Stored {
  metadata: { name: string; resourceVersion: string; uid: string };
  webhooks?: Array<{ name: string; failurePolicy?: string }>;
}

const pods = { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] };

function hook(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    clientConfig: { service: { namespace: "hooks", name: "inject" } },
    rules: [pods],
    ...extra,
  };
}

async function create(kube: Kube, path: string, name: string, hooks: object[]): Promise<Stored> {
  const kind = path === MWC ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration";
  const res = await kube.request("POST", path, {
    apiVersion: `${GROUP}/v1beta1`,
    kind,
    metadata: { name },
    webhooks: hooks,
  });
  expect(res.status, res.body).toBe(201);
  return JSON.parse(res.body) as Stored;
}

async function get(kube: Kube, path: string, name: string): Promise<Stored | undefined> {
  const res = await kube.request("GET", `${path}/${name}`);
  if (res.status === 404) return undefined;
  expect(res.status, res.body).toBe(200);
  return JSON.parse(res.body) as Stored;
}

const names = (o: Stored | undefined) => o?.webhooks?.map((w) => w.name);

test.describe("v1beta1 webhook configurations", () => {
  test("the navigation links them; the list shows the call order and the v1beta1 defaults", async ({
    page,
    kube,
    cleanup,
  }) => {
    const id = uniqueName("e2e-b1");
    const m = `m-${id}`;
    const v = `v-${id}`;
    await create(kube, MWC, m, [
      hook(`plain.${id}.example.com`),
      hook(`set.${id}.example.com`, { failurePolicy: "Fail", timeoutSeconds: 5 }),
    ]);
    await create(kube, VWC, v, [hook(`check.${id}.example.com`)]);
    const e = `e-${id}`;
    const eahc = await kube.request("POST", EAHC, {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: "ExternalAdmissionHookConfiguration",
      metadata: { name: e },
      externalAdmissionHooks: [
        {
          name: `old.${id}.example.com`,
          clientConfig: { service: { namespace: "hooks", name: "old" }, caBundle: "Y2E=" },
          rules: [pods],
        },
      ],
    });
    expect(eahc.status, eahc.body).toBe(201);
    cleanup.defer(async () => {
      await kube.request("DELETE", `${MWC}/${m}`);
      await kube.request("DELETE", `${VWC}/${v}`);
      await kube.request("DELETE", `${EAHC}/${e}`);
    });
    await page.goto("/");
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "v1beta1 hooks" })
      .click();
    await expect(page).toHaveURL(/\/legacy-webhooks$/);
    await expect(page.getByText("live", { exact: true })).toBeVisible();

    // Call order: mutating serial in their own labelled section, with effective settings.
    const order = page.getByRole("table", { name: /^v1beta1 mutating webhooks/ });
    await expect(order.getByTestId(`order-row-plain.${id}.example.com`)).toContainText("Ignore");
    await expect(order.getByTestId(`order-row-plain.${id}.example.com`)).toContainText("Exact");
    await expect(order.getByTestId(`order-row-plain.${id}.example.com`)).toContainText("30s");
    await expect(order.getByTestId(`order-row-set.${id}.example.com`)).toContainText("Fail");
    await expect(order.getByTestId(`order-row-set.${id}.example.com`)).toContainText("5s");
    await expect(
      page
        .getByRole("table", { name: /^v1beta1 validating webhooks/ })
        .getByTestId(`order-row-check.${id}.example.com`),
    ).toBeVisible();

    // Each hook's settings: the v1beta1 default beside v1's.
    const config = page.getByTestId(`config-${m}`);
    await config.getByTestId(`v1beta1-hook-plain.${id}.example.com`).locator("summary").click();
    const fp = config.getByTestId(`setting-plain.${id}.example.com-failurePolicy`);
    await expect(fp).toContainText("Ignore");
    await expect(fp).toContainText("v1beta1 default");
    await expect(fp).toContainText("Fail");
    for (const [field, value, v1] of [
      ["matchPolicy", "Exact", "Equivalent"],
      ["sideEffects", "Unknown", "required"],
      ["timeoutSeconds", "30", "10"],
      ["admissionReviewVersions", "[v1beta1]", "required"],
      ["namespaceSelector", "{}", "{}"],
      ["objectSelector", "{}", "{}"],
      ["rules[].scope", "*", "*"],
      ["reinvocationPolicy", "Never", "Never"],
    ] as const) {
      const row = config.getByTestId(`setting-plain.${id}.example.com-${field}`);
      await expect(row.locator("td").first()).toContainText(value);
      await expect(row.locator("td").last()).toContainText(v1);
    }
    // The stored object is unchanged by the view: the defaults are the page's, not written.
    expect((await get(kube, MWC, m))?.webhooks?.[0]?.failurePolicy).toBeUndefined();
    await page.screenshot({ path: "e2e/artifacts/legacy-webhooks.png", fullPage: true });

    // The call order page shows them in their own section too, below the cluster's own.
    await page.goto("/webhooks/order");
    const historical = page.getByRole("region", { name: /^Historical hooks/ });
    await expect(historical.getByTestId(`order-row-check.${id}.example.com`)).toBeVisible();
    // External admission hooks (1.7–1.8) in a section of their own: validating, default Ignore.
    await expect(
      historical
        .getByRole("table", { name: /^External admission hooks/ })
        .getByTestId(`order-row-old.${id}.example.com`),
    ).toContainText("Ignore");
  });

  test("create with validation and dry run, conflict on a stale edit, reorder, rename, delete", async ({
    page,
    kube,
    cleanup,
  }) => {
    const id = uniqueName("e2e-b1w");
    const name = `c-${id}`;
    const [x, y] = [`x.${id}.example.com`, `y.${id}.example.com`];
    cleanup.defer(async () => {
      await kube.request("DELETE", `${MWC}/${name}`);
      await kube.request("DELETE", `${MWC}/0-${id}`);
    });
    await page.goto("/legacy-webhooks");
    await expect(page.getByText("live", { exact: true })).toBeVisible();
    await page.getByRole("button", { name: "New MutatingWebhookConfiguration" }).click();
    const editor = page.getByRole("region", { name: "New MutatingWebhookConfiguration" });
    const field = editor.getByLabel("YAML of the new configuration");
    const yaml = (hooks: string) =>
      `apiVersion: ${GROUP}/v1beta1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: ${name}\nwebhooks:\n${hooks}`;
    const rules = `    clientConfig:\n      service: {namespace: hooks, name: inject}\n    rules:\n      - operations: ["CREATE"]\n        apiGroups: [""]\n        apiVersions: ["v1"]\n        resources: ["pods"]\n`;
    // The v1beta1 rules: a hook name must be fully qualified.
    await field.fill(yaml(`  - name: short\n${rules}`));
    const problems = editor.getByRole("list", { name: "Validation errors" });
    await expect(problems).toContainText("webhooks[0].name");
    await expect(editor.getByRole("button", { name: "Create" })).toBeDisabled();
    // v1beta1 leaves sideEffects and admissionReviewVersions optional (v1 requires them).
    await field.fill(yaml(`  - name: ${x}\n${rules}  - name: ${y}\n${rules}`));
    await expect(problems).toHaveCount(0);
    await expect(editor.getByText("as its v1beta1 apiserver checked it")).toBeVisible();
    await editor.getByRole("button", { name: "Dry run" }).click();
    await expect(editor.getByLabel("Dry run result")).toBeVisible();
    expect(await get(kube, MWC, name)).toBeUndefined();
    await editor.getByRole("button", { name: "Create" }).click();
    await expect.poll(async () => names(await get(kube, MWC, name))).toEqual([x, y]);

    // Update with conflict: the editor holds the version it opened; someone else writes first.
    const config = page.getByTestId(`config-${name}`);
    await expect(config).toBeVisible();
    await config.getByRole("button", { name: "Edit YAML" }).click();
    const edit = config.getByRole("region", { name: `Edit ${name}` });
    const text = edit.getByLabel(`YAML of ${name}`);
    const stored = (await get(kube, MWC, name)) as Stored;
    const theirs = await kube.request("PUT", `${MWC}/${name}`, {
      ...stored,
      webhooks: [...(stored.webhooks ?? []), hook(`z.${id}.example.com`)],
    });
    expect(theirs.status, theirs.body).toBe(200);
    await text.fill((await text.inputValue()).replace(`name: ${y}`, `name: w.${id}.example.com`));
    await edit.getByRole("button", { name: `Apply to ${name}` }).click();
    await expect(edit.getByRole("alert")).toContainText("409");
    await expect(edit.getByText(`Someone changed ${name} since you opened it`)).toBeVisible();
    expect(names(await get(kube, MWC, name))).toEqual([x, y, `z.${id}.example.com`]);
    await edit.getByRole("button", { name: "Close" }).click();

    // An edit of the current version applies.
    await config.getByRole("button", { name: "Edit YAML" }).click();
    const again = config.getByRole("region", { name: `Edit ${name}` });
    const text2 = again.getByLabel(`YAML of ${name}`);
    await expect(text2).toHaveValue(new RegExp(`z\\.${id}`));
    await text2.fill(
      (await text2.inputValue()).replace(`name: z.${id}.example.com`, `name: w.${id}.example.com`),
    );
    await again.getByRole("button", { name: `Apply to ${name}` }).click();
    await expect
      .poll(async () => names(await get(kube, MWC, name)))
      .toEqual([x, y, `w.${id}.example.com`]);

    // Reorder within the configuration: y before x, shown as a diff first.
    const handle = config.getByRole("button", {
      name: new RegExp(`^y\\.${id}\\.example\\.com, position 2`),
    });
    await expect(handle).toBeEnabled();
    await handle.focus();
    await page.keyboard.press("Alt+ArrowUp");
    const diff = config.getByLabel(`New order of ${name}`);
    await expect(diff).toBeVisible();
    await diff.getByRole("button", { name: `Save order of ${name}` }).click();
    await expect
      .poll(async () => names(await get(kube, MWC, name)))
      .toEqual([y, x, `w.${id}.example.com`]);

    // Safe rename moves the whole configuration in the call order (create, verify, delete).
    const renamed = `0-${id}`;
    await config.getByRole("button", { name: `Rename ${name}` }).click();
    const rename = config.getByRole("group", { name: `Rename ${name}` });
    await rename.getByLabel("New name").fill(renamed);
    await rename.getByRole("button", { name: "Rename safely" }).click();
    await expect
      .poll(async () => names(await get(kube, MWC, renamed)))
      .toEqual([y, x, `w.${id}.example.com`]);
    await expect.poll(async () => get(kube, MWC, name)).toBeUndefined();
    await expect(page.getByRole("status").filter({ hasText: `Renamed ${name}` })).toBeVisible();

    // Delete with typed confirmation and preconditions.
    const moved = page.getByTestId(`config-${renamed}`);
    await moved.getByRole("button", { name: "Delete…" }).click();
    const confirm = moved.getByRole("dialog", { name: "Confirm delete" });
    await confirm.getByLabel("Type the name to confirm").fill(renamed);
    await confirm.getByRole("button", { name: `Delete ${renamed}` }).click();
    await expect.poll(async () => get(kube, MWC, renamed)).toBeUndefined();
    await expect(page.getByTestId(`config-${renamed}`)).toHaveCount(0);
  });

  test("Predict shows them in their own sections, called or skipped with the reason", async ({
    page,
    kube,
    cleanup,
  }) => {
    const id = uniqueName("e2e-b1p");
    const m = `m-${id}`;
    cleanup.defer(async () => {
      await kube.request("DELETE", `${MWC}/${m}`);
    });
    await create(kube, MWC, m, [
      hook(`pods.${id}.example.com`),
      hook(`prod.${id}.example.com`, { namespaceSelector: { matchLabels: { env: "prod" } } }),
    ]);
    await page.goto("/predict");
    await expect(page.getByTestId("verdict")).toBeVisible();
    await page
      .getByLabel("Object", { exact: true })
      .fill("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: default\n");
    const section = page.getByTestId("legacy-v1beta1-mutating");
    await expect(section.getByTestId(`legacy-call-pods.${id}.example.com`)).toContainText("Ignore");
    await expect(section.getByTestId(`legacy-call-pods.${id}.example.com`)).toContainText("30s");
    const skip = section.getByTestId(`legacy-skip-prod.${id}.example.com`);
    await expect(skip).toHaveAttribute("data-code", "namespace-selector");
    await expect(skip).toContainText("namespaceSelector");
  });

  test("the viewer sees every historical page read-only, with the reason on the buttons", async ({
    page,
    kube,
    stack,
    baseURL,
    cleanup,
  }) => {
    const id = uniqueName("e2e-b1r");
    const m = `m-${id}`;
    cleanup.defer(async () => {
      await kube.request("DELETE", `${MWC}/${m}`);
    });
    await create(kube, MWC, m, [hook(`a.${id}.example.com`)]);
    await page
      .context()
      .addCookies([
        { name: "portcullis-context", value: stack.contexts.viewer, url: baseURL ?? "" },
      ]);
    await page.goto("/legacy-webhooks");
    await expect(page.getByTestId("read-only-v1beta1-mutatingwebhookconfigurations")).toBeVisible();
    const create_ = page.getByRole("button", { name: "New MutatingWebhookConfiguration" });
    await expect(create_).toBeDisabled();
    await expect(create_).toHaveAttribute("title", /may not create/);
    const config = page.getByTestId(`config-${m}`);
    await expect(config.getByRole("button", { name: "Edit YAML" })).toBeDisabled();
    await expect(config.getByRole("button", { name: "Edit YAML" })).toHaveAttribute(
      "title",
      /may not update/,
    );
    await expect(config.getByRole("button", { name: "Delete…" })).toBeDisabled();
    await expect(config.getByRole("button", { name: `Rename ${m}` })).toBeDisabled();
    await expect(
      config.getByRole("button", { name: new RegExp(`^a\\.${id}\\.example\\.com, position 1`) }),
    ).toBeDisabled();

    for (const [path, r] of [
      ["/initializers", "initializerconfigurations"],
      ["/external-admission-hooks", "externaladmissionhookconfigurations"],
    ] as const) {
      await page.goto(path);
      await expect(page.getByTestId(`read-only-${r}`)).toBeVisible();
      if (r === "initializerconfigurations")
        // A current apiserver holds no object back: the page says so instead of a list.
        await expect(page.getByTestId("uninitialized-not-served")).toContainText("1.7–1.13");
      await expect(page.getByRole("button", { name: "New configuration" })).toBeDisabled();
    }
    // The apiserver agrees.
    const res = await kube.request(
      "POST",
      `${MWC}?dryRun=All`,
      {
        apiVersion: `${GROUP}/v1beta1`,
        kind: "MutatingWebhookConfiguration",
        metadata: { name: `x-${id}` },
      },
      "viewer",
    );
    expect(res.status).toBe(403);
  });
});
