import { test, expect } from "../test/e2e/fixtures";
import {
  createConfig,
  deleteConfig,
  getConfig,
  GROUP_PATH,
  hook,
  uniqueName,
} from "../test/e2e/webhooks-helpers";

const R = "validatingwebhookconfigurations" as const;
const KIND = "ValidatingWebhookConfiguration";

interface Timeline {
  entries: Array<{
    change: {
      id: number;
      actor?: { user: string };
      source: string;
      operation: string;
      context?: string;
    };
    lastKnown?: number;
  }>;
}

test.describe("Change history", () => {
  test("edits by two users show on the timeline with their diffs, the hook's page marks them, and an earlier version is restored through the editor", async ({
    page,
    kube,
    cleanup,
    dashboardApi,
  }) => {
    // A long flow: three writes, the audit batches, three pages and the editor's dry run and apply.
    test.slow();
    const name = uniqueName("e2e-history");
    const h = `a.${name}.example.com`;
    cleanup.defer(async () => {
      await deleteConfig(kube, R, name);
    });
    const created = await createConfig(kube, R, name, [hook(h, { timeoutSeconds: 10 })]);
    // The editor raises the timeout, then the admin raises it again.
    const path = `${GROUP_PATH}/${R}/${name}`;
    const byEditor = await kube.request(
      "PUT",
      path,
      { ...created, webhooks: [hook(h, { timeoutSeconds: 20 })] },
      "editor",
    );
    expect(byEditor.status, byEditor.body).toBe(200);
    const second = JSON.parse(byEditor.body) as typeof created;
    const byAdmin = await kube.request("PUT", path, {
      ...second,
      webhooks: [hook(h, { timeoutSeconds: 25 })],
    });
    expect(byAdmin.status, byAdmin.body).toBe(200);

    // The apiserver's audit webhook delivers the writes within its batch wait: wait on the API.
    const timeline = async () =>
      (await (
        await dashboardApi.call("GET", `/api/history/objects/${KIND}/${name}`)
      ).json()) as Timeline;
    await expect
      .poll(async () => (await timeline()).entries.map((e) => e.change.actor?.user ?? "?"), {
        timeout: 30_000,
      })
      .toEqual(["admin", "editor", "admin"]);

    await page.goto(`/webhooks/${R}/${name}`);
    await page.getByTestId("history-link").click();
    await expect(page).toHaveURL(new RegExp(`/history/${KIND}/${name}$`));
    const entries = page.getByTestId("timeline-entry");
    await expect(entries).toHaveCount(3);
    await expect(entries.nth(0).getByTestId("actor")).toContainText("admin");
    await expect(entries.nth(1).getByTestId("actor")).toContainText("editor");
    await expect(entries.nth(1).getByTestId("diff-row")).toHaveText([
      `webhooks[name=${h}].timeoutSeconds1020`,
    ]);
    await page.screenshot({ path: "e2e/artifacts/history-timeline.png", fullPage: true });

    // The configuration's page marks each change on its hook's decisions chart.
    await page.goto(`/webhooks/${R}/${name}`);
    await expect(page.getByTestId("hook-effects").getByTestId("change-marker")).toHaveCount(3);
    await page.getByTestId("hook-effects").scrollIntoViewIfNeeded();
    await page.screenshot({ path: "e2e/artifacts/history-markers.png", fullPage: true });

    // Restore the first version: the editor opens it as a proposed edit against the object now.
    await page.goto(`/history/${KIND}/${name}`);
    await entries.nth(2).getByTestId("restore").click();
    // Monaco loads first (a few seconds on a busy machine).
    await expect(page.getByTestId("proposal")).toContainText("opened as a proposed edit", {
      timeout: 30_000,
    });
    await page.getByRole("button", { name: "Dry run" }).click();
    await expect(page.getByRole("region", { name: "Dry run result" })).toContainText(
      "accepted by the apiserver",
    );
    const beforeApply = await getConfig(kube, R, name);
    expect(beforeApply?.webhooks?.[0]?.timeoutSeconds).toBe(25);
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page.getByText(/^Applied: stored at resourceVersion/)).toBeVisible();
    const restored = await getConfig(kube, R, name);
    expect(restored?.webhooks?.[0]?.timeoutSeconds).toBe(10);
    expect(restored?.metadata.uid).toBe(created.metadata.uid);

    // The restore is a change of its own, by the dashboard's identity, on the cluster-wide page.
    await expect.poll(async () => (await timeline()).entries.length, { timeout: 30_000 }).toBe(4);
    await page.goto(`/changes?name=${name}`);
    await expect(page.getByTestId("change-row")).toHaveCount(4);
    await page.screenshot({ path: "e2e/artifacts/history-changes.png", fullPage: true });
    await page.getByTestId("change-row").first().getByRole("link", { name }).click();
    await expect(page).toHaveURL(new RegExp(`/history/${KIND}/${name}$`));
    await expect(entries).toHaveCount(4);
  });

  test("a deleted configuration is created again from its last known state through the editor, and each change names the context it was seen through", async ({
    page,
    kube,
    cleanup,
    dashboardApi,
    stack,
  }) => {
    test.slow();
    const ctx = stack.contexts.admin;
    const name = uniqueName("e2e-history-del");
    const h = `a.${name}.example.com`;
    cleanup.defer(async () => {
      await deleteConfig(kube, R, name);
    });
    const timeline = async () =>
      (await (
        await dashboardApi.call("GET", `/api/history/objects/${KIND}/${name}`)
      ).json()) as Timeline;
    // A first read starts watching the tab's context: every write after it is seen through it.
    await timeline();
    const created = await createConfig(kube, R, name, [hook(h, { timeoutSeconds: 12 })]);
    const del = await kube.request("DELETE", `${GROUP_PATH}/${R}/${name}`);
    expect(del.status, del.body).toBe(200);
    await expect
      .poll(
        async () =>
          (await timeline()).entries.map((e) => [e.change.operation, e.change.context ?? ""]),
        { timeout: 30_000 },
      )
      .toEqual([
        ["delete", ctx],
        ["create", ctx],
      ]);

    await page.goto(`/history/${KIND}/${name}`);
    const entries = page.getByTestId("timeline-entry");
    await expect(entries).toHaveCount(2);
    await expect(entries.nth(0).getByTestId("entry-context")).toContainText(ctx);
    // Only the deletion offers to create the object again (the creation is not restorable
    // as an edit: there is no object to edit).
    await expect(page.getByTestId("recreate")).toHaveCount(1);
    await entries.nth(0).getByTestId("recreate").click();
    await expect(page.getByTestId("proposal")).toContainText("opened to be created again", {
      timeout: 30_000,
    });
    await page.getByRole("button", { name: "Dry run" }).click();
    await expect(page.getByRole("region", { name: "Dry run result" })).toContainText(
      "accepted by the apiserver",
    );
    expect(await getConfig(kube, R, name)).toBeUndefined();
    await page.getByRole("button", { name: "Create" }).click();
    await expect(page).toHaveURL(new RegExp(`/webhooks/${R}/${name}$`));
    const again = await getConfig(kube, R, name);
    expect(again?.webhooks?.[0]?.timeoutSeconds).toBe(12);
    expect(again?.metadata.uid).not.toBe(created.metadata.uid);

    // The cluster-wide page filters by the context a change was seen through.
    await expect.poll(async () => (await timeline()).entries.length, { timeout: 30_000 }).toBe(3);
    await page.goto(`/changes?name=${name}&cluster=${encodeURIComponent(ctx)}`);
    await expect(page.getByTestId("change-row")).toHaveCount(3);
    await expect(page.getByTestId("change-context").first()).toHaveText(ctx);
    await page.goto(`/changes?name=${name}&cluster=no-such-context`);
    await expect(page.getByText("No change matches.")).toBeVisible();
  });
});
