/**
 * The editing flows end to end, where two admins meet or only a keyboard is used: a delete
 * confirmation open while someone else changes the configuration deletes nothing unreviewed; an
 * unsaved order on the order page survives their change to a hook's fields (saved onto it, their
 * change kept) and is dropped with a notice when they change the hook list itself; a hook dropped
 * on another configuration's list reorders nothing there, and a drag moves the hook dragged though
 * the list is reordered by someone else while it is held. The editor can be left by keyboard as
 * it says, keeps an unsaved edit through a network blip, re-applies after a conflict what was typed
 * after the conflict view opened, opens the same view when a dry run meets the conflict (the merge
 * is dry-run, not written), and takes the cursor to a listed problem every time. Delete and
 * rename, and a reorder's save and cancel, are operated from the keyboard alone. A dry run's verdict is not shown as the verdict on
 * a text edited since.
 */
import { test, expect, type Kube } from "../test/e2e/fixtures";
import { dragOnto, orderPageIsCurrent, startDrag } from "../test/e2e/order-drag";
import { serious } from "../test/e2e/axe";
import {
  setEditorText,
  createConfig,
  deleteConfig,
  editorText,
  getConfig,
  GROUP_PATH,
  hook,
  lineOf,
  threeHookConfig,
  uniqueName,
  type StoredConfig,
} from "../test/e2e/webhooks-helpers";

const V = "validatingwebhookconfigurations" as const;
const M = "mutatingwebhookconfigurations" as const;

/** Another admin stores a 3 s timeout on the configuration as it was created. */
async function otherAdminSetsTimeout(kube: Kube, made: StoredConfig, name: string): Promise<void> {
  const theirs = structuredClone(made);
  (theirs.webhooks?.[0] as Record<string, unknown>).timeoutSeconds = 3;
  expect((await kube.request("PUT", `${GROUP_PATH}/${V}/${name}`, theirs)).status).toBe(200);
}

/** My edit: the editor's text with the failure policy turned to Ignore. */
function withIgnore(text: string): string {
  const mine = text.replace("failurePolicy: Fail", "failurePolicy: Ignore");
  expect(mine).not.toBe(text);
  return mine;
}

test.describe("Editing flows: two admins, keyboard, drag", () => {
  test("a delete confirmation open while the configuration changes is held until the new version is confirmed", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-del-held");
    cleanup.defer(async () => {
      await deleteConfig(kube, V, name);
    });
    const made = await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
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
    expect(await serious(page)).toEqual([]);
    expect((await getConfig(kube, V, name))?.webhooks?.[0]?.failurePolicy).toBe("Ignore");

    // Confirming the current version asks for the name again, then deletes that version.
    await held.getByRole("button", { name: "Confirm the current version" }).click();
    await expect(dialog.getByRole("alert")).toHaveCount(0);
    await expect(confirm).toBeDisabled();
    await dialog.getByLabel("Type the name to confirm").fill(name);
    await confirm.click();
    await expect(page).toHaveURL(/\/webhooks$/);
    await expect.poll(async () => getConfig(kube, V, name)).toBeUndefined();
  });

  test("an unsaved order is saved onto another admin's field change, and dropped with a notice when they reorder", async ({
    page,
    kube,
    cleanup,
  }) => {
    const { name, a, b, c, made } = await threeHookConfig(kube, cleanup, "e2e-order-live");
    const put = async (body: unknown) => {
      const res = await kube.request("PUT", `${GROUP_PATH}/${M}/${name}`, body);
      expect(res.status).toBe(200);
      return (JSON.parse(res.body) as { metadata: { resourceVersion: string } }).metadata
        .resourceVersion;
    };
    const names = async () => (await getConfig(kube, M, name))?.webhooks?.map((w) => w.name);
    await page.goto("/webhooks/order");
    const config = page.getByTestId(`config-${name}`);
    const moveUp = async (hookName: string, position: number) => {
      const handle = config.getByRole("button", {
        name: new RegExp(`^${hookName.replace(/\./g, "\\.")}, position ${position}`),
      });
      await expect(handle).toBeEnabled();
      await handle.focus();
      await page.keyboard.press("Alt+ArrowUp");
    };
    await moveUp(b, 2);
    const diff = config.getByLabel(`New order of ${name}`);
    await expect(diff).toBeVisible();

    // They change a hook's timeout: the pending order stays, and saving keeps their change.
    const edited = structuredClone(made);
    (edited.webhooks?.[0] as Record<string, unknown>).timeoutSeconds = 4;
    const rv = await put(edited);
    // The live page has the new version.
    await expect(config).toHaveAttribute("data-resource-version", rv);
    await expect(diff).toBeVisible();
    await expect(config.getByTestId(`hook-item-${a}`)).toContainText("moved from 1");
    await diff.getByRole("button", { name: `Save order of ${name}` }).click();
    await expect.poll(names).toEqual([b, a, c]);
    const saved = await getConfig(kube, M, name);
    expect(saved?.webhooks?.find((w) => w.name === a)?.timeoutSeconds).toBe(4);

    // They reorder the list while mine is pending: mine is dropped, and I am told.
    await expect(diff).toHaveCount(0);
    await moveUp(c, 3);
    await expect(diff).toBeVisible();
    const theirs = await getConfig(kube, M, name);
    if (!theirs?.webhooks) throw new Error("no hooks");
    theirs.webhooks = [...theirs.webhooks].reverse();
    await expect(config).toHaveAttribute("data-resource-version", await put(theirs));
    await expect(config.getByRole("alert")).toContainText("changed by someone else");
    expect(await serious(page)).toEqual([]);
    await expect(diff).toHaveCount(0);
    expect(await names()).toEqual([c, a, b]);
  });

  test("the editor says how to leave it by keyboard, and that way works", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-keys");
    cleanup.defer(async () => {
      await deleteConfig(kube, V, name);
    });
    await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    await page.goto(`/webhooks/${V}/${name}/edit`);
    const before = await editorText(page, V);
    const help = page.getByTestId("editor-keys");
    await expect(help).toContainText("Ctrl+M");
    const input = page.getByRole("textbox", { name: /^YAML editor\./ });
    await expect(input).toHaveAccessibleName(/Ctrl\+M/);
    await input.focus();
    await page.keyboard.press("Control+m");
    await page.keyboard.press("Shift+Tab");
    await expect(page.getByRole("button", { name: "Apply" })).toBeFocused();
    // Leaving did not indent anything.
    expect(await editorText(page, V)).toBe(before);
    expect(await serious(page)).toEqual([]);
  });

  test("an unsaved edit survives a reconnect after someone else changed the object; apply then shows the conflict", async ({
    browser,
    kube,
    baseURL,
    cleanup,
  }) => {
    const name = uniqueName("e2e-blip");
    const made = await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    const ctx = await browser.newContext({ baseURL });
    cleanup.defer(async () => {
      await ctx.close();
      await deleteConfig(kube, V, name);
    });
    const page = await ctx.newPage();
    await page.goto(`/webhooks/${V}/${name}/edit`);
    const text = await editorText(page, V);
    const mine = withIgnore(text);
    await setEditorText(page, V, mine);

    await otherAdminSetsTimeout(kube, made, name);
    await ctx.setOffline(true);
    await ctx.setOffline(false);
    // Whatever the page fetches on reconnect (there may be nothing to wait for), the edit stays.
    await page.waitForTimeout(2500);
    expect(await editorText(page, V)).toBe(mine);

    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page.getByRole("region", { name: "Conflict" })).toContainText("409 Conflict");
    expect((await getConfig(kube, V, name))?.webhooks?.[0]?.failurePolicy).toBe("Fail");
  });

  test("re-applying after a conflict carries what I typed after the conflict view opened", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-reapply");
    cleanup.defer(async () => {
      await deleteConfig(kube, V, name);
    });
    const made = await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    await page.goto(`/webhooks/${V}/${name}/edit`);
    const text = await editorText(page, V);
    // Someone else changes the timeout while I edit the failure policy.
    await otherAdminSetsTimeout(kube, made, name);
    const first = withIgnore(text);
    await setEditorText(page, V, first);
    await page.getByRole("button", { name: "Apply" }).click();
    const conflict = page.getByRole("region", { name: "Conflict" });
    await expect(conflict).toContainText("409 Conflict");

    // With the conflict view open I change one more thing, then re-apply.
    const second = first.replace("matchPolicy: Equivalent", "matchPolicy: Exact");
    expect(second).not.toBe(first);
    await setEditorText(page, V, second);
    await conflict.getByRole("button", { name: /Re-apply my changes/ }).click();
    await expect(page.getByRole("status")).toContainText("Applied");
    const stored = (await getConfig(kube, V, name))?.webhooks?.[0];
    expect(stored?.timeoutSeconds).toBe(3);
    expect(stored?.failurePolicy).toBe("Ignore");
    expect(stored?.matchPolicy).toBe("Exact");
  });

  test("a dry run meeting another admin's change opens the conflict view; merging onto it dry-runs again and writes nothing", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-dry-conflict");
    cleanup.defer(async () => {
      await deleteConfig(kube, V, name);
    });
    const made = await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    await page.goto(`/webhooks/${V}/${name}/edit`);
    const text = await editorText(page, V);
    // Another admin applies a new timeout while I change the failure policy.
    await otherAdminSetsTimeout(kube, made, name);
    const theirVersion = (await getConfig(kube, V, name))?.metadata.resourceVersion ?? "";
    const mine = withIgnore(text);
    await setEditorText(page, V, mine);

    await page.getByRole("button", { name: "Dry run" }).click();
    const conflict = page.getByRole("region", { name: "Conflict" });
    await expect(conflict).toContainText("Your dry run was refused (409 Conflict)");
    await expect(conflict).toContainText(theirVersion);
    await expect(conflict.getByTestId("diff-theirs")).toBeVisible();
    await expect(conflict.getByTestId("diff-mine")).toBeVisible();
    // Apply stays off while the conflict is open, as after an Apply's 409.
    await expect(page.getByRole("button", { name: "Apply", exact: true })).toBeDisabled();

    // Merging my change onto theirs is dry-run again: a dry run never writes.
    await conflict
      .getByRole("button", { name: /Merge my changes onto version .* and dry run/ })
      .click();
    await expect(conflict).toHaveCount(0);
    await expect(page.getByRole("region", { name: "Dry run result" })).toContainText(
      "accepted by the apiserver",
    );
    const merged = await editorText(page, V);
    expect(merged).toContain("timeoutSeconds: 3");
    expect(merged).toContain("failurePolicy: Ignore");
    const untouched = await getConfig(kube, V, name);
    expect(untouched?.metadata.resourceVersion).toBe(theirVersion);
    expect(untouched?.webhooks?.[0]?.failurePolicy).toBe("Fail");

    // Apply then writes the merge onto their version: both changes survive.
    await page.getByRole("button", { name: "Apply", exact: true }).click();
    await expect(page.getByRole("status")).toContainText("Applied");
    const stored = (await getConfig(kube, V, name))?.webhooks?.[0];
    expect(stored?.timeoutSeconds).toBe(3);
    expect(stored?.failurePolicy).toBe("Ignore");
  });

  test("a problem in the list puts the cursor on its line, again and again", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-jump");
    cleanup.defer(async () => {
      await deleteConfig(kube, V, name);
    });
    await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    const cursor = () =>
      page.evaluate(() => {
        const e = window.monaco?.editor.getEditors()[0];
        return { line: e?.getPosition()?.lineNumber, focused: e?.hasTextFocus() };
      });
    await page.goto(`/webhooks/${V}/${name}/edit`);
    const bad = (await editorText(page, V)).replace("timeoutSeconds: 10", "timeoutSeconds: 45");
    await setEditorText(page, V, bad);
    const line = lineOf(bad, "timeoutSeconds: 45");
    const jump = page
      .getByRole("region", { name: "Problems" })
      .getByRole("button", { name: `Ln ${line},` });
    await jump.click();
    await expect.poll(cursor).toEqual({ line, focused: true });
    // Away from it, and back by the same entry.
    await page.keyboard.press("Control+Home");
    await expect.poll(cursor).toEqual({ line: 1, focused: true });
    await jump.focus();
    await page.keyboard.press("Enter");
    await expect.poll(cursor).toEqual({ line, focused: true });
  });

  test("a hook dropped on another configuration's list reorders nothing there", async ({
    page,
    kube,
    cleanup,
  }) => {
    const { name: one, c: lastOfOne } = await threeHookConfig(kube, cleanup, "e2e-drag-one");
    const { name: two, a: a2, b: b2, c: c2 } = await threeHookConfig(kube, cleanup, "e2e-drag-two");
    await page.goto("/webhooks/order");
    const first = page.getByTestId(`config-${one}`);
    const second = page.getByTestId(`config-${two}`);
    await expect(first.getByRole("button", { name: /position 3/ })).toBeEnabled();
    await expect(second.getByRole("button", { name: /position 3/ })).toBeEnabled();
    // A live update (a configuration another test removed, say) moves the lists on the page: the
    // drags are made once the page shows what the apiserver has, so nothing moves under them.
    await orderPageIsCurrent(page, kube);
    await second.scrollIntoViewIfNeeded();
    await first.scrollIntoViewIfNeeded();

    const fromOne = first.getByTestId(`hook-item-${lastOfOne}`);
    await startDrag(page, fromOne);
    await dragOnto(page, second.getByTestId(`hook-item-${a2}`));
    await page.mouse.up();
    // The drag is over (its source no longer marked) before its outcome is read.
    await expect(fromOne).not.toHaveAttribute("data-drag");
    await expect(second.locator("[data-drag]")).toHaveCount(0);
    await expect(page.getByLabel(`New order of ${two}`)).toHaveCount(0);
    await expect(page.getByLabel(`New order of ${one}`)).toHaveCount(0);

    // Within one list, a drag still works: the other list's drag left nothing behind.
    const fromTwo = second.getByTestId(`hook-item-${c2}`);
    const onto = second.getByTestId(`hook-item-${a2}`);
    await startDrag(page, fromTwo);
    await dragOnto(page, onto);
    await expect(onto).toHaveAttribute("data-drag", "target");
    await page.mouse.up();
    await expect(page.getByLabel(`New order of ${two}`)).toBeVisible();
    await expect(
      second.getByRole("list", { name: `Hooks of ${two}` }).getByRole("listitem"),
    ).toContainText([c2, a2, b2]);
    await expect(second.locator("[data-drag]")).toHaveCount(0);
  });

  test("a drag moves the hook dragged, though another admin reorders the list while it is held", async ({
    page,
    kube,
    cleanup,
  }) => {
    const { name, a, b, c, made } = await threeHookConfig(kube, cleanup, "e2e-drag-live");
    await page.goto("/webhooks/order");
    const config = page.getByTestId(`config-${name}`);
    await expect(config.getByRole("button", { name: /position 3/ })).toBeEnabled();
    await orderPageIsCurrent(page, kube);
    await config.scrollIntoViewIfNeeded();
    const item = (h: string) => config.getByTestId(`hook-item-${h}`);
    await startDrag(page, item(c));
    // While c is held, they reverse the list: c is first now, b still second.
    const theirs = structuredClone(made);
    theirs.webhooks = [...(made.webhooks ?? [])].reverse();
    const res = await kube.request("PUT", `${GROUP_PATH}/${M}/${name}`, theirs);
    expect(res.status).toBe(200);
    const rv = (JSON.parse(res.body) as StoredConfig).metadata.resourceVersion;
    await expect(config).toHaveAttribute("data-resource-version", rv);
    await expect(item(c)).toHaveAttribute("data-drag", "source");
    // Dropped on b: c goes to b's place, wherever c stood when the drag began.
    await dragOnto(page, item(b));
    await expect(item(b)).toHaveAttribute("data-drag", "target");
    await page.mouse.up();
    const diff = config.getByLabel(`New order of ${name}`);
    await expect(diff).toBeVisible();
    await expect(
      config.getByRole("list", { name: `Hooks of ${name}` }).getByRole("listitem"),
    ).toContainText([b, c, a]);
  });

  test("delete and rename open with focus in their name field and give it back when closed", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-kbd");
    cleanup.defer(async () => {
      await deleteConfig(kube, V, name);
    });
    await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    await page.goto(`/webhooks/${V}/${name}`);
    const del = page.getByRole("button", { name: "Delete…" });
    await expect(del).toBeEnabled();
    await del.focus();
    await page.keyboard.press("Enter");
    const typed = page.getByLabel("Type the name to confirm");
    await expect(typed).toBeFocused();
    await page.keyboard.type(name);
    await page.getByRole("button", { name: "Cancel" }).focus();
    await page.keyboard.press("Enter");
    await expect(del).toBeFocused();

    await page.goto("/webhooks/order");
    const rename = page.getByRole("button", { name: `Rename ${name}` });
    await expect(rename).toBeEnabled();
    await rename.focus();
    await page.keyboard.press("Enter");
    const form = page.getByRole("group", { name: `Rename ${name}` });
    await expect(form.getByLabel("New name")).toBeFocused();
    await form.getByRole("button", { name: "Close" }).focus();
    await page.keyboard.press("Enter");
    await expect(rename).toBeFocused();
    expect((await getConfig(kube, V, name))?.metadata.name).toBe(name);
  });

  test("a dry run's verdict is withdrawn once the text changes", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-stale-dry");
    cleanup.defer(async () => {
      await deleteConfig(kube, V, name);
    });
    await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    await page.goto(`/webhooks/${V}/${name}/edit`);
    const text = await editorText(page, V);
    await page.getByRole("button", { name: "Dry run" }).click();
    const result = page.getByRole("region", { name: "Dry run result" });
    await expect(result).toContainText("accepted by the apiserver");
    // An edit the apiserver refuses: the earlier "accepted" must not stand beside it.
    await setEditorText(page, V, text.replace("timeoutSeconds: 10", "timeoutSeconds: 45"));
    await expect(result).toContainText("of an earlier text");
    await expect(result).not.toContainText("accepted");
    await page.getByRole("button", { name: "Dry run" }).click();
    await expect(result).toContainText("rejected by the apiserver");
  });

  test("saving or cancelling a keyboard reorder leaves focus on the hook moved", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-order-kbd");
    const [a, b] = ["a", "b"].map((x) => `${x}.${name}.example.com`) as [string, string];
    cleanup.defer(async () => {
      await deleteConfig(kube, M, name);
    });
    await createConfig(kube, M, name, [hook(a), hook(b)]);
    await page.goto("/webhooks/order");
    const config = page.getByTestId(`config-${name}`);
    const handle = config.getByRole("button", {
      name: new RegExp(`^${b.replace(/\./g, "\\.")},`),
    });
    await expect(handle).toBeEnabled();
    const diff = config.getByLabel(`New order of ${name}`);
    // Cancel by keyboard.
    await handle.focus();
    await page.keyboard.press("Alt+ArrowUp");
    await diff.getByRole("button", { name: "Cancel" }).focus();
    await page.keyboard.press("Enter");
    await expect(diff).toHaveCount(0);
    await expect(handle).toBeFocused();
    // Save by keyboard.
    await page.keyboard.press("Alt+ArrowUp");
    await diff.getByRole("button", { name: `Save order of ${name}` }).focus();
    await page.keyboard.press("Enter");
    await expect
      .poll(async () => (await getConfig(kube, M, name))?.webhooks?.map((w) => w.name))
      .toEqual([b, a]);
    await expect(handle).toBeFocused();
  });
  test("leaving the editor with an edit not applied asks first; declined, the edit stays", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-leave");
    cleanup.defer(async () => {
      await deleteConfig(kube, V, name);
    });
    await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    await page.goto(`/webhooks/${V}/${name}/edit`);
    const stored = await editorText(page, V);
    const nav = page.getByRole("navigation", { name: "Main" });
    const asked: string[] = [];
    // Nothing changed: a link leaves without asking.
    page.once("dialog", (d) => {
      asked.push(d.message());
      void d.dismiss();
    });
    await nav.getByRole("link", { name: "Health", exact: true }).click();
    await expect(page).toHaveURL(/\/health/);
    expect(asked).toEqual([]);
    page.removeAllListeners("dialog");

    await page.goto(`/webhooks/${V}/${name}/edit`);
    await editorText(page, V);
    const edited = stored.replace("timeoutSeconds: 10", "timeoutSeconds: 7");
    expect(edited).not.toBe(stored);
    await setEditorText(page, V, edited);
    // Declined: still here, the edit kept.
    page.once("dialog", (d) => {
      asked.push(d.message());
      void d.dismiss();
    });
    await nav.getByRole("link", { name: "Health", exact: true }).click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toContain(`Leave ${name}?`);
    await expect(page).toHaveURL(new RegExp(`/${name}/edit`));
    expect(await editorText(page, V)).toBe(edited);
    // Accepted: it leaves, and nothing was written.
    page.once("dialog", (d) => void d.accept());
    await nav.getByRole("link", { name: "Health", exact: true }).click();
    await expect(page).toHaveURL(/\/health/);
    expect((await getConfig(kube, V, name))?.webhooks?.[0]?.timeoutSeconds).toBe(10);
  });
});
