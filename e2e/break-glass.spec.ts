import { test, expect } from "../test/e2e/fixtures";
import {
  createConfig,
  deleteConfig,
  getConfig,
  hook,
  uniqueName,
} from "../test/e2e/webhooks-helpers";

const V = "validatingwebhookconfigurations" as const;

test.describe("Break-glass", () => {
  test("the banner shows on every page with the time left, and its early revert restores the hook", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-break-glass");
    cleanup.defer(async () => {
      await deleteConfig(kube, V, name);
    });
    await createConfig(kube, V, name, [hook(`a.${name}.example.com`, { failurePolicy: "Fail" })]);

    await page.goto(`/webhooks/${V}/${name}`);
    await page.getByTestId("break-glass-open").click();
    await page.getByTestId("break-glass-reason").fill("backend down, e2e");
    await page.getByTestId("break-glass-submit").click();

    const banner = page.getByTestId("break-glass-banner");
    const episode = banner.getByTestId("break-glass-episode").filter({ hasText: name });
    await expect(episode).toBeVisible();
    await expect(episode).toContainText("failurePolicy Ignore");
    await expect(episode).toContainText("backend down, e2e");
    const left = episode.getByTestId("break-glass-time-left");
    await expect(left).toHaveText(/^(30 min 00 s|29 min \d\d s) left$/);
    // It counts down.
    const first = await left.textContent();
    await expect.poll(() => left.textContent(), { timeout: 5_000 }).not.toBe(first);
    await expect
      .poll(async () => (await getConfig(kube, V, name))?.webhooks?.[0]?.failurePolicy)
      .toBe("Ignore");

    // On another page too.
    await page.goto("/decisions");
    await expect(
      page.getByTestId("break-glass-banner").getByTestId("break-glass-episode").filter({
        hasText: name,
      }),
    ).toBeVisible();

    await page
      .getByTestId("break-glass-banner")
      .getByTestId("break-glass-episode")
      .filter({ hasText: name })
      .getByRole("button", { name: "Revert now" })
      .click();
    await expect(page.getByTestId("break-glass-episode").filter({ hasText: name })).toHaveCount(0);
    await expect
      .poll(async () => (await getConfig(kube, V, name))?.webhooks?.[0]?.failurePolicy)
      .toBe("Fail");
  });

  test("a break-glass started in one tab shows in another at once, from the stream, without polling", async ({
    page,
    kube,
    cleanup,
  }) => {
    const name = uniqueName("e2e-break-glass-tabs");
    cleanup.defer(async () => {
      await deleteConfig(kube, V, name);
    });
    await createConfig(kube, V, name, [hook(`a.${name}.example.com`, { failurePolicy: "Fail" })]);

    // The second tab: its clock is the test's, so time can be moved on there without waiting.
    const other = await page.context().newPage();
    await other.clock.install();
    const reads: string[] = [];
    other.on("request", (r) => {
      if (r.method() === "GET" && new URL(r.url()).pathname === "/api/break-glass")
        reads.push(r.url());
    });
    const streamOpened = other.waitForResponse(
      (r) => new URL(r.url()).pathname === "/api/break-glass/stream",
    );
    await other.goto("/decisions");
    expect((await streamOpened).headers()["content-type"]).toMatch(/^text\/event-stream/);
    // The first read (the read each connection of the stream makes may come with it, or after).
    await expect.poll(() => reads.length).toBeGreaterThanOrEqual(1);
    const before = reads.length;
    // 40 s of this tab's time pass (under the stream's 45 s silence bound, so the stream is kept):
    // a banner that polled would have read the list again and again (it did every 5 s); this one
    // waits for the stream.
    await other.clock.runFor(40_000);

    await page.goto(`/webhooks/${V}/${name}`);
    await page.getByTestId("break-glass-open").click();
    await page.getByTestId("break-glass-reason").fill("second tab, e2e");
    await page.getByTestId("break-glass-submit").click();
    await expect(
      page.getByTestId("break-glass-banner").getByTestId("break-glass-episode").filter({
        hasText: name,
      }),
    ).toBeVisible();

    const there = other
      .getByTestId("break-glass-banner")
      .getByTestId("break-glass-episode")
      .filter({ hasText: name });
    await expect(there).toBeVisible();
    await expect(there).toContainText("second tab, e2e");
    // Read once per change told (the start, and at most a sweep's word of it), and perhaps the
    // stream's first read if it came after the first: not on a clock (polling read 8 times).
    expect(reads.length - before).toBeLessThanOrEqual(3);

    // The end shows there at once too.
    await page
      .getByTestId("break-glass-banner")
      .getByTestId("break-glass-episode")
      .filter({ hasText: name })
      .getByRole("button", { name: "Revert now" })
      .click();
    await expect(there).toHaveCount(0);
    await expect
      .poll(async () => (await getConfig(kube, V, name))?.webhooks?.[0]?.failurePolicy)
      .toBe("Fail");
    await other.close();
  });

  test("on an admission policy binding: Warn in place of Deny, its panel on the binding's page, the exact binding back on revert", async ({
    page,
    kube,
    objects,
  }) => {
    const name = uniqueName("e2e-break-glass-binding");
    const group = "/apis/admissionregistration.k8s.io/v1";
    await objects.create(`${group}/validatingadmissionpolicies`, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name },
      spec: {
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ["break-glass.example.com"],
              apiVersions: ["v1"],
              operations: ["CREATE"],
              resources: ["widgets"],
            },
          ],
        },
        validations: [{ expression: "false" }],
      },
    } as { metadata: { name: string } });
    const created = await objects.create(`${group}/validatingadmissionpolicybindings`, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name },
      spec: { policyName: name, validationActions: ["Deny"] },
    } as { metadata: { name: string } });
    const before = (JSON.parse(created.body) as { spec: unknown }).spec;

    await page.goto(`/policies/validatingadmissionpolicybindings/${name}`);
    const panel = page.getByTestId("break-glass-panel");
    await panel.getByTestId("break-glass-open").click();
    await expect(panel.getByTestId("break-glass-mode-warn")).toBeChecked();
    await expect(panel.getByTestId("break-glass-mode-ignore")).toHaveCount(0);
    await expect(panel.getByTestId("break-glass-binding-now")).toContainText(
      "validationActions now Deny",
    );
    await panel.getByTestId("break-glass-reason").fill("policy misfires, e2e");
    await panel.getByTestId("break-glass-submit").click();

    const episode = page
      .getByTestId("break-glass-banner")
      .getByTestId("break-glass-episode")
      .filter({ hasText: name });
    await expect(episode).toContainText("ValidatingAdmissionPolicyBinding");
    await expect(episode).toContainText("validationActions Warn, Audit (was Deny)");
    await expect(panel.getByTestId("break-glass-episode")).toBeVisible();
    const read = async () =>
      JSON.parse(
        (await kube.request("GET", `${group}/validatingadmissionpolicybindings/${name}`)).body,
      ) as { spec: unknown };
    await expect
      .poll(async () => (await read()).spec)
      .toEqual({
        policyName: name,
        validationActions: ["Warn", "Audit"],
      });

    await episode.getByRole("button", { name: "Revert now" }).click();
    await expect(episode).toHaveCount(0);
    await expect.poll(async () => (await read()).spec).toEqual(before);
  });

  test("is not offered to a viewer", async ({ page, kube, stack, baseURL, cleanup }) => {
    const name = uniqueName("e2e-break-glass-viewer");
    cleanup.defer(async () => {
      await deleteConfig(kube, V, name);
    });
    await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
    await page
      .context()
      .addCookies([
        { name: "portcullis-context", value: stack.contexts.viewer, url: baseURL ?? "" },
      ]);
    await page.goto(`/webhooks/${V}/${name}`);
    await expect(page.getByTestId("break-glass-not-allowed")).toBeVisible();
    await expect(page.getByTestId("break-glass-open")).toHaveCount(0);
  });
});
