import { test, expect } from "../test/e2e/fixtures";
import {
  createConfig,
  deleteConfig,
  editorMarkers,
  editorText,
  getConfig,
  hook,
  lineOf,
  setEditorText,
  uniqueName,
} from "../test/e2e/webhooks-helpers";

const R = "validatingwebhookconfigurations" as const;

test.describe("Editing webhook configurations", () => {
  test("inline error at the right line → fix → dry run with defaults → apply", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-edit");
    cleanup.defer(async () => {
      await deleteConfig(kube, R, name);
    });
    const created = await createConfig(kube, R, name, [hook(`a.${name}.example.com`)]);
    await page.goto(`/webhooks/${R}/${name}/edit`);
    const original = await editorText(page, R);
    expect(original).toContain(`resourceVersion: "${created.metadata.resourceVersion}"`);

    // An out-of-range timeout: the validator's marker sits on that line, with the apiserver's words.
    const bad = original.replace("timeoutSeconds: 10", "timeoutSeconds: 45");
    await setEditorText(page, R, bad);
    await expect
      .poll(async () => (await editorMarkers(page, R)).filter((m) => m.owner === "admission"))
      .toEqual([
        expect.objectContaining({
          line: lineOf(bad, "timeoutSeconds: 45"),
          message: expect.stringContaining("the timeout value must be between 1 and 30 seconds"),
        }),
      ]);
    await expect(page.locator(".monaco-editor .squiggly-error").first()).toBeVisible();
    await expect(page.getByRole("region", { name: "Problems" })).toContainText(
      `Ln ${lineOf(bad, "timeoutSeconds: 45")}`,
    );
    // Checked as the cluster's own minor, read from its /version.
    await expect(page.getByTestId("problems-minor")).toHaveText(
      /^Checked as Kubernetes 1\.\d+ \(the cluster's version\)\.$/,
    );

    // Fix it, and leave matchPolicy out so the server's defaulting shows in the dry run.
    const fixed = bad
      .replace("timeoutSeconds: 45", "timeoutSeconds: 5")
      .replace(/\n\s+matchPolicy: Equivalent/, "");
    expect(fixed).not.toContain("matchPolicy");
    await setEditorText(page, R, fixed);
    await expect
      .poll(async () => (await editorMarkers(page, R)).filter((m) => m.severity === 8))
      .toEqual([]);
    await expect(page.getByTestId("error-count")).toHaveText("0 errors");

    await page.getByRole("button", { name: "Dry run" }).click();
    const result = page.getByRole("region", { name: "Dry run result" });
    await expect(result).toContainText("accepted by the apiserver");
    const stored = await page.evaluate(() =>
      window.monaco?.editor
        .getModels()
        .find((m) => m.uri.toString().includes("diff/dryrun/modified"))
        ?.getValue(),
    );
    expect(stored).toContain("matchPolicy: Equivalent");
    expect(stored).toContain("timeoutSeconds: 5");
    // A dry run changes nothing.
    const afterDry = await getConfig(kube, R, name);
    expect(afterDry?.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    await page.screenshot({ path: "e2e/artifacts/webhook-editor.png", fullPage: true });

    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page.getByRole("status")).toContainText("Applied");
    const after = await getConfig(kube, R, name);
    expect(after?.webhooks?.[0]?.timeoutSeconds).toBe(5);
    expect(after?.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
  });

  test("malformed YAML and an apiserver rejection are shown in place; nothing is applied", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-bad");
    cleanup.defer(async () => {
      await deleteConfig(kube, R, name);
    });
    const created = await createConfig(kube, R, name, [hook(`a.${name}.example.com`)]);
    await page.goto(`/webhooks/${R}/${name}/edit`);
    const original = await editorText(page, R);

    // Malformed YAML, typed: monaco-yaml's worker reports it (proves the worker runs).
    const line = lineOf(original, "sideEffects: None");
    await page.locator(".monaco-editor .view-lines").click();
    await page.evaluate(
      ({ l }) => {
        const ed = window.monaco?.editor.getEditors()[0];
        ed?.setPosition({ lineNumber: l, column: 1 });
        ed?.focus();
      },
      { l: line },
    );
    await page.keyboard.type("  broken: [unclosed\n");
    await expect
      .poll(async () => (await editorMarkers(page, R)).filter((m) => m.owner === "yaml").length)
      .toBeGreaterThan(0);
    const yamlMarkers = (await editorMarkers(page, R)).filter((m) => m.owner === "yaml");
    expect(yamlMarkers.some((m) => Math.abs(m.line - line) <= 1)).toBe(true);
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page.getByRole("status")).toContainText("nothing was applied");
    expect((await getConfig(kube, R, name))?.metadata.resourceVersion).toBe(
      created.metadata.resourceVersion,
    );

    // Well-formed but invalid: the apiserver's 422 causes land on the fields they name.
    const invalid = original
      .replace("sideEffects: None", "sideEffects: Sometimes")
      .replace("timeoutSeconds: 10", "timeoutSeconds: 99");
    await setEditorText(page, R, invalid);
    await page.getByRole("button", { name: "Apply" }).click();
    await expect
      .poll(async () => (await editorMarkers(page, R)).filter((m) => m.owner === "apiserver"))
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            line: lineOf(invalid, "timeoutSeconds: 99"),
            message: expect.stringContaining("webhooks[0].timeoutSeconds: Invalid value: 99"),
          }),
          expect.objectContaining({
            line: lineOf(invalid, "sideEffects: Sometimes"),
            message: expect.stringContaining("webhooks[0].sideEffects: Unsupported value"),
          }),
        ]),
      );
    await expect(page.getByRole("region", { name: "Dry run result" })).toContainText("422");

    // An unknown field: strict field validation refuses it, at the key.
    const unknown = original.replace(
      "sideEffects: None",
      "sideEffects: None\n    sideEfects: None",
    );
    await setEditorText(page, R, unknown);
    await page.getByRole("button", { name: "Apply" }).click();
    await expect
      .poll(async () => (await editorMarkers(page, R)).filter((m) => m.owner === "apiserver"))
      .toEqual([
        expect.objectContaining({
          line: lineOf(unknown, "sideEfects"),
          message: expect.stringContaining('unknown field "webhooks[0].sideEfects"'),
        }),
      ]);
    expect((await getConfig(kube, R, name))?.metadata.resourceVersion).toBe(
      created.metadata.resourceVersion,
    );
  });

  test("two sessions edit the same configuration: the second gets the three-way view and both changes survive", async ({
    browser,
    kube,
    baseURL,
    cleanup,
  }) => {
    const name = uniqueName("e2e-conflict");
    await createConfig(kube, R, name, [hook(`a.${name}.example.com`)]);
    const a = await browser.newContext({ baseURL, viewport: { width: 1360, height: 860 } });
    const b = await browser.newContext({ baseURL, viewport: { width: 1360, height: 860 } });
    cleanup.defer(async () => {
      await a.close();
      await b.close();
      await deleteConfig(kube, R, name);
    });
    const pa = await a.newPage();
    const pb = await b.newPage();
    await pa.goto(`/webhooks/${R}/${name}/edit`);
    await pb.goto(`/webhooks/${R}/${name}/edit`);
    const ta = await editorText(pa, R);
    const tb = await editorText(pb, R);
    expect(ta).toBe(tb);

    await setEditorText(pa, R, ta.replace("timeoutSeconds: 10", "timeoutSeconds: 7"));
    await pa.getByRole("button", { name: "Apply" }).click();
    await expect(pa.getByRole("status")).toContainText("Applied");

    await setEditorText(pb, R, tb.replace("failurePolicy: Fail", "failurePolicy: Ignore"));
    await pb.getByRole("button", { name: "Apply" }).click();
    const conflict = pb.getByRole("region", { name: "Conflict" });
    await expect(conflict).toContainText("409 Conflict");
    await expect(conflict.getByTestId("diff-theirs")).toBeVisible();
    await expect(conflict.getByTestId("diff-mine")).toBeVisible();
    // Nothing of B's was written.
    const mid = await getConfig(kube, R, name);
    expect(mid?.webhooks?.[0]?.failurePolicy).toBe("Fail");
    expect(mid?.webhooks?.[0]?.timeoutSeconds).toBe(7);
    await pb.screenshot({ path: "e2e/artifacts/webhook-conflict.png", fullPage: true });

    await conflict.getByRole("button", { name: /Re-apply my changes/ }).click();
    await expect(pb.getByRole("status")).toContainText("Applied");
    const after = await getConfig(kube, R, name);
    expect(after?.webhooks?.[0]?.failurePolicy).toBe("Ignore");
    expect(after?.webhooks?.[0]?.timeoutSeconds).toBe(7);
  });

  test("create from each template, duplicate, and delete with typed confirmation", async ({
    page,
    kube,
    cleanup,
  }) => {
    const templates = [
      { id: "validating-runlevel", resource: "validatingwebhookconfigurations" as const },
      { id: "mutating-sidecar", resource: "mutatingwebhookconfigurations" as const },
      { id: "url-hook", resource: "validatingwebhookconfigurations" as const },
    ];
    const made: Array<{ resource: (typeof templates)[number]["resource"]; name: string }> = [];
    cleanup.defer(async () => {
      for (const m of made) await deleteConfig(kube, m.resource, m.name);
    });
    for (const t of templates) {
      const name = uniqueName(`e2e-tpl-${t.id}`);
      await page.goto(`/webhooks/new?template=${t.id}`);
      await editorText(page, t.resource);
      await page.getByRole("tab", { name: "Form" }).click();
      await page.getByLabel("Name (metadata.name)").fill(name);
      await page.getByRole("tab", { name: "YAML" }).click();
      await expect.poll(async () => editorText(page, t.resource)).toContain(`name: ${name}`);
      made.push({ resource: t.resource, name });
      await page.getByRole("button", { name: "Create" }).click();
      await expect(page).toHaveURL(new RegExp(`/webhooks/${t.resource}/${name}$`));
      const stored = await getConfig(kube, t.resource, name);
      expect(stored?.webhooks?.length).toBe(1);
      if (t.id === "validating-runlevel")
        expect(JSON.stringify(stored?.webhooks?.[0]?.namespaceSelector)).toContain("runlevel");
      if (t.id === "mutating-sidecar")
        expect(stored?.webhooks?.[0]?.reinvocationPolicy).toBe("IfNeeded");
      if (t.id === "url-hook")
        expect(JSON.stringify(stored?.webhooks?.[0]?.clientConfig)).toContain("url");
    }

    // Duplicate the url hook's configuration.
    const src = made[2] as { resource: typeof R; name: string };
    await page.goto(`/webhooks/${src.resource}/${src.name}`);
    await page.getByRole("link", { name: "Duplicate" }).click();
    const copyText = await editorText(page, R);
    expect(copyText).toContain(`name: ${src.name}-copy`);
    expect(copyText).not.toContain("resourceVersion");
    await page.getByRole("button", { name: "Create" }).click();
    await expect(page).toHaveURL(new RegExp(`/webhooks/${R}/${src.name}-copy$`));
    made.push({ resource: R, name: `${src.name}-copy` });
    const copy = await getConfig(kube, R, `${src.name}-copy`);
    const orig = await getConfig(kube, R, src.name);
    expect(copy?.webhooks).toEqual(orig?.webhooks);

    // Delete the copy: the button stays disabled until the name is typed exactly.
    await page.getByRole("button", { name: "Delete…" }).click();
    const dialog = page.getByRole("dialog", { name: "Confirm delete" });
    const confirm = dialog.getByRole("button", { name: `Delete ${src.name}-copy` });
    await expect(confirm).toBeDisabled();
    await dialog.getByLabel("Type the name to confirm").fill(`${src.name}-cop`);
    await expect(confirm).toBeDisabled();
    await dialog.getByLabel("Type the name to confirm").fill(`${src.name}-copy`);
    await confirm.click();
    await expect(page).toHaveURL(/\/webhooks$/);
    expect(await getConfig(kube, R, `${src.name}-copy`)).toBeUndefined();
    expect((await getConfig(kube, R, src.name))?.metadata.name).toBe(src.name);
  });
});
