/**
 * The Health page in Chromium against the real apiserver and harness webhooks: hooks are ranked
 * worst first and each flagged row says why, with the apiserver's own call counts.
 */
import {
  test,
  expect,
  type Cleanup,
  type DashboardApi,
  type Kube,
  type KubeObjects,
} from "../test/e2e/fixtures";
import type { HealthReport } from "../lib/api/health";
import type { StackInfo } from "../cluster/harness/stack";
import { startWebhookServer } from "../cluster/harness/webhook-server";
import { uniqueName } from "../test/e2e/webhooks-helpers";
import { foldAdmissionMetrics, policyKey, webhookKey } from "../lib/admission/health/metrics";

const CONFIGS = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

/**
 * A namespace and a configuration of two hooks served by a new harness server: "fast" (allows,
 * 5 s timeout, position 0) and "fail-open" (sleeps 3 s past its 1 s timeout, Ignore, position 1),
 * each called twice by creating two configmaps. The server, the configuration and the namespace
 * are removed once the test is over.
 */
async function seedTwoHooks(
  {
    stack,
    kube,
    cleanup,
    objects,
  }: { stack: StackInfo; kube: Kube; cleanup: Cleanup; objects: KubeObjects },
  prefix: string,
) {
  const server = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
  cleanup.defer(() => server.close());
  server.program("fast", { type: "allow" });
  server.program("fail-open", { type: "sleep", seconds: 3 });
  const name = uniqueName(prefix);
  const ns = await objects.namespace(`${prefix}-ns`);
  const hookName = (h: string) => `${h}.${name}.example.com`;
  const hook = (h: string, timeoutSeconds: number) => ({
    name: hookName(h),
    clientConfig: { url: server.url(h), caBundle: server.caBundle },
    rules: [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
    ],
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    failurePolicy: "Ignore",
    timeoutSeconds,
  });
  await objects.create(CONFIGS, {
    metadata: { name },
    webhooks: [hook("fast", 5), hook("fail-open", 1)],
  } as { metadata: { name: string } });
  // The apiserver's informers pick the new configuration up a moment after it is created; a
  // create before then calls neither hook. Both hooks sit in one configuration, so they become
  // active together: create until "fast" has been called twice, and "fail-open" was too.
  let i = 0;
  await expect
    .poll(
      async () => {
        const res = await kube.request("POST", `/api/v1/namespaces/${ns}/configmaps`, {
          metadata: { name: `cm-${i++}` },
        });
        expect(res.status).toBe(201);
        return server.calls("fast").length;
      },
      { message: "the apiserver calls the seeded hooks", timeout: 30_000, intervals: [0] },
    )
    .toBeGreaterThanOrEqual(2);
  expect(server.calls("fast")).toHaveLength(2);
  expect(server.calls("fail-open")).toHaveLength(2);
  return { server, name, ns, hookName };
}

/**
 * Waits until the dashboard's health report for the configuration `name` holds what the apiserver
 * has counted and traced for the seeded hooks: the metrics read now (a test hook, not the 15 s
 * scrape interval), and each hook's two calls received from the apiserver's spans. A page opened
 * after this shows all of it on its first read, with no refresh to wait for.
 */
async function reportShowsCalls(dashboardApi: DashboardApi, name: string): Promise<void> {
  await dashboardApi.scrapeMetrics();
  await expect
    .poll(
      async () => {
        const res = await dashboardApi.call(
          "GET",
          `/api/admission-health?source=ValidatingWebhookConfiguration&configuration=${name}`,
        );
        expect(res.status).toBe(200);
        const report = (await res.json()) as HealthReport;
        return report.rows
          .filter((r) => r.configuration === name)
          .map(
            (r) =>
              `${r.index}: ${r.total?.failOpen ?? "-"} fail-opens, ${r.traces?.calls ?? 0} traced`,
          )
          .sort();
      },
      // The apiserver exports its spans in batches, every few seconds.
      { message: "the report counts and traces both hooks' calls", timeout: 30_000 },
    )
    .toEqual(["0: 0 fail-opens, 2 traced", "1: 2 fail-opens, 2 traced"]);
}

test.describe("Health", () => {
  test("ranks hooks worst first and says why each is flagged", async ({
    page,
    dashboardApi,
    stack,
    kube,
    cleanup,
    objects,
  }) => {
    const { name } = await seedTwoHooks({ stack, kube, cleanup, objects }, "e2e-health");
    await reportShowsCalls(dashboardApi, name);
    await page.goto("/health");
    await expect(page.getByRole("heading", { name: "Health" })).toBeVisible();
    const failOpen = page.getByTestId(`health-${name}-1`);
    const fast = page.getByTestId(`health-${name}-0`);
    // The metrics were read after both calls: the first report shows them.
    // It times out every call: critical, and it failed open each time.
    await expect(failOpen).toHaveAttribute("data-severity", "critical");
    await expect(failOpen.locator('[data-code="fails-open"]')).toContainText("failed open 2 times");
    await expect(failOpen.locator('[data-code="slow"]')).toContainText("calls time out");
    await expect(fast).toHaveAttribute("data-severity", "ok");
    await expect(fast).toContainText("TLS ok");
    // Worst first: the failing-open hook comes before the healthy one.
    const order = await page
      .locator("table.health-table tbody tr")
      .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-testid")));
    expect(order.indexOf(`health-${name}-1`)).toBeLessThan(order.indexOf(`health-${name}-0`));
    // The hook links to its configuration.
    await expect(failOpen.getByRole("link", { name })).toHaveAttribute(
      "href",
      `/webhooks/validatingwebhookconfigurations/${name}`,
    );
    await expect(page.getByTestId("trace-status")).toContainText("receiving on");
    await page.screenshot({ path: "e2e/artifacts/health.png", fullPage: true });
  });

  test("each hook's detail page shows its health card, cross-linked to the Health page", async ({
    page,
    dashboardApi,
    stack,
    kube,
    cleanup,
    objects,
  }) => {
    const { server, name, hookName } = await seedTwoHooks(
      { stack, kube, cleanup, objects },
      "e2e-hcard",
    );
    await reportShowsCalls(dashboardApi, name);
    // The apiserver's own count, read before the page: no other traffic reaches these hooks.
    const metrics = foldAdmissionMetrics((await kube.request("GET", "/metrics")).body);
    const failOpens = metrics.webhooks.get(
      webhookKey(hookName("fail-open"), "validating"),
    )?.failOpen;
    expect(failOpens).toBe(2);

    await page.goto(`/webhooks/validatingwebhookconfigurations/${name}`);
    const slowCard = page.getByRole("group", { name: `Health of ${hookName("fail-open")}` });
    const fastCard = page.getByRole("group", { name: `Health of ${hookName("fast")}` });
    // Each card sits in its own hook's panel.
    await expect(
      page.getByRole("region", { name: `Hook ${hookName("fail-open")}` }).getByRole("group"),
    ).toHaveAttribute("aria-label", `Health of ${hookName("fail-open")}`);
    await expect(slowCard).toHaveAttribute("data-severity", "critical");
    await expect(slowCard.locator('[data-code="fails-open"]')).toContainText(
      `failed open ${failOpens} times`,
    );
    await expect(slowCard.locator('[data-code="slow"]')).toContainText("calls time out");
    await expect(slowCard.getByTestId("health-counts")).toContainText(`2 · 0 · ${failOpens}`);
    await expect(fastCard).toHaveAttribute("data-severity", "ok");
    await expect(fastCard.getByTestId("health-probe")).toContainText("TLS ok");
    // Each call as the apiserver's own span timed it, joined to the call the hook received.
    await expect(fastCard.getByTestId("trace-summary")).toContainText("2 calls");
    for (const c of server.calls("fast")) {
      const row = fastCard
        .getByRole("table", { name: "Latest traced calls" })
        .locator(`tr[data-uid="${c.request.uid}"]`);
      await expect(row).toContainText("CREATE");
      // The resource in the dashboard's form, not the span's "/v1, Resource=configmaps".
      const r = c.request.resource;
      await expect(row).toContainText(`${r.group || "core"}/${r.version}/${r.resource}`);
    }
    // The failing-open hook's calls ran into its 1 s timeout.
    await expect(slowCard.getByTestId("trace-summary")).toContainText("2 calls");
    await expect(slowCard.locator(".traced-calls")).toContainText("2 at the timeout");
    await expect(fastCard.getByTestId("health-latency")).not.toContainText("— / — / —");

    // Cross-links: decisions, the hook's matrix column, prediction.
    await expect(slowCard.getByRole("link", { name: "decisions" })).toHaveAttribute(
      "href",
      `/decisions?hook=${encodeURIComponent(hookName("fail-open"))}&phase=validating`,
    );
    await expect(slowCard.getByRole("link", { name: "matrix" })).toHaveAttribute(
      "href",
      `/hooks/ValidatingWebhookConfiguration/${name}/${encodeURIComponent(hookName("fail-open"))}`,
    );
    // The prediction opens on a request this hook is called for (e2e/predict.spec.ts).
    await expect(slowCard.getByRole("link", { name: "predict" })).toHaveAttribute(
      "href",
      `/predict?${new URLSearchParams({ for: `ValidatingWebhookConfiguration/${name}/${hookName("fail-open")}` }).toString()}`,
    );
    await page.screenshot({ path: "e2e/artifacts/health-card.png", fullPage: false });

    // The card leads to its row on the Health page, which is marked and leads back.
    await slowCard.getByRole("link", { name: "on the Health page" }).click();
    await expect(page).toHaveURL(/\/health#/);
    const row = page.locator(`[id="health-ValidatingWebhookConfiguration-${name}-1"]`);
    await expect(row).toHaveAttribute("aria-current", "location");
    await expect(row).toHaveAttribute("data-severity", "critical");
    await expect(row.getByRole("link", { name: "decisions" })).toHaveAttribute(
      "href",
      `/decisions?hook=${encodeURIComponent(hookName("fail-open"))}&phase=validating`,
    );
    await row.getByRole("link", { name }).click();
    await expect(page).toHaveURL(`/webhooks/validatingwebhookconfigurations/${name}`);
    await expect(slowCard).toBeVisible();

    // The hook's matrix column page leads on to its decisions, prediction and Health row.
    await slowCard.getByRole("link", { name: "matrix" }).click();
    const head = page.locator(".page-head");
    await expect(head.getByRole("link", { name: "Health" })).toHaveAttribute(
      "href",
      `/health#health-ValidatingWebhookConfiguration-${name}-1`,
    );
    await expect(head.getByRole("link", { name: "Decisions" })).toHaveAttribute(
      "href",
      `/decisions?hook=${encodeURIComponent(hookName("fail-open"))}&phase=validating`,
    );
    await head.getByRole("link", { name: "Predict" }).click();
    await expect(page.getByTestId("hook-example")).toContainText(hookName("fail-open"));
  });

  test("on a phone (390x844) the latest traced calls fit the health card: nothing scrolls sideways, nothing is dropped", async ({
    page,
    dashboardApi,
    stack,
    kube,
    cleanup,
    objects,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const { server, name, hookName } = await seedTwoHooks(
      { stack, kube, cleanup, objects },
      "e2e-hnarrow",
    );
    await reportShowsCalls(dashboardApi, name);
    await page.goto(`/webhooks/validatingwebhookconfigurations/${name}`);
    const card = page.getByRole("group", { name: `Health of ${hookName("fast")}` });
    await expect(card.getByTestId("trace-summary")).toContainText("2 calls");
    const table = card.getByRole("table", { name: "Latest traced calls" });
    // Neither the table nor anything around it scrolls sideways.
    const scrolling = await table.evaluate((t) => {
      const wide: string[] = [];
      for (let el: Element | null = t; el; el = el.parentElement) {
        if (el.scrollWidth > el.clientWidth + 1)
          wide.push(`${el.tagName}.${el.className}: ${el.scrollWidth} > ${el.clientWidth}`);
      }
      return wide;
    });
    expect(scrolling).toEqual([]);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    const calls = server.calls("fast");
    expect(calls).toHaveLength(2);
    for (const c of calls) {
      const row = table.locator(`tr[data-uid="${c.request.uid}"]`);
      // Every fact of the call is still there, and on screen.
      await expect(row).toContainText("CREATE");
      const r = c.request.resource;
      await expect(row).toContainText(`${r.group || "core"}/${r.version}/${r.resource}`);
      await expect(row).toContainText(c.request.uid);
      await expect(row).toContainText(/\d+(\.\d)? ms/);
      await expect(row).toContainText(/\d{1,2}:\d{2}:\d{2}/);
      const box = await row.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= 390, "the row is on screen").toBe(true);
    }
    await card.screenshot({ path: "e2e/artifacts/health-card-narrow.png" });
  });

  test("a validating policy's page shows its checks as the apiserver counts them", async ({
    page,
    kube,
    objects,
    dashboardApi,
  }) => {
    const name = uniqueName("e2e-hpol");
    const ns = await objects.namespace("e2e-hpol-ns");
    const group = "/apis/admissionregistration.k8s.io/v1";
    await objects.create(`${group}/validatingadmissionpolicies`, {
      metadata: { name },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [
            {
              operations: ["CREATE"],
              apiGroups: [""],
              apiVersions: ["v1"],
              resources: ["configmaps"],
            },
          ],
        },
        validations: [{ expression: "object.metadata.name != 'forbidden'" }],
      },
    } as { metadata: { name: string } });
    await objects.create(`${group}/validatingadmissionpolicybindings`, {
      metadata: { name: `${name}-b` },
      spec: {
        policyName: name,
        validationActions: ["Deny"],
        matchResources: {
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
        },
      },
    } as { metadata: { name: string } });
    // A new policy takes a moment to be enforced: retry until the forbidden name is refused.
    await expect
      .poll(
        async () =>
          (
            await kube.request("POST", `/api/v1/namespaces/${ns}/configmaps`, {
              metadata: { name: "forbidden" },
            })
          ).status,
        { timeout: 20_000 },
      )
      .toBe(422);
    expect(
      (
        await kube.request("POST", `/api/v1/namespaces/${ns}/configmaps`, {
          metadata: { name: "allowed" },
        })
      ).status,
    ).toBe(201);
    const metrics = foldAdmissionMetrics((await kube.request("GET", "/metrics")).body);
    // The apiserver counts denials and evaluation errors, not clean admits.
    const checks = metrics.policies.get(
      policyKey("ValidatingAdmissionPolicy", name, `${name}-b`),
    )?.checks;
    expect(checks).toBeGreaterThanOrEqual(1);
    // The dashboard reads /metrics now: the page's first report holds these counts.
    await dashboardApi.scrapeMetrics();

    await page.goto(`/policies/validatingadmissionpolicies/${name}`);
    const bindingRow = page.getByTestId(`policy-health-ValidatingAdmissionPolicy-${name}-b`);
    await expect(bindingRow.getByTestId("policy-checks")).toHaveText(String(checks));
    await expect(bindingRow).toContainText("deny");
    await expect(bindingRow.getByRole("link", { name: "matrix" })).toHaveAttribute(
      "href",
      `/hooks/ValidatingAdmissionPolicy/${name}/${name}-b`,
    );
    await bindingRow.getByRole("link", { name: "on the Health page" }).click();
    const row = page.locator(`[id="health-policy-ValidatingAdmissionPolicy-${name}-${name}-b"]`);
    await expect(row).toHaveAttribute("aria-current", "location");
    await expect(row.getByTestId("policy-checks")).toHaveText(String(checks));

    // The policy's prediction: a request its binding applies to, in the one namespace it selects.
    await page.goto(`/policies/validatingadmissionpolicies/${name}`);
    await page
      .getByRole("region", { name: "Health" })
      .getByRole("link", { name: "predict" })
      .click();
    const note = page.getByTestId("hook-example");
    await expect(note).toHaveAttribute("data-called", "true");
    await expect(note).toContainText(`CREATE configmaps in namespace ${ns}`);
    await expect(page.locator("[data-testid=call][data-focus]")).toHaveAttribute(
      "data-key",
      `ValidatingAdmissionPolicy:${name}/${name}-b`,
    );
  });

  test("a mutating policy's mutations and failing expressions are counted, flagged and cross-linked", async ({
    page,
    kube,
    objects,
    dashboardApi,
  }) => {
    const name = uniqueName("e2e-hmap");
    const ns = await objects.namespace("e2e-hmap-ns");
    const group = "/apis/admissionregistration.k8s.io/v1";
    const configmaps = [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
    ];
    const inNs = { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } } };
    const mutatingPolicy = (policy: string, failurePolicy: string, expression: string) => ({
      metadata: { name: policy },
      spec: {
        failurePolicy,
        reinvocationPolicy: "Never",
        matchConstraints: { resourceRules: configmaps },
        mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression } }],
      },
    });
    const labelled = name;
    const failing = `${name}-err`;
    const create = (path: string, body: { metadata: { name: string } }) =>
      objects.create(path, body);
    // Adds a label to every configmap created in the namespace.
    await create(
      `${group}/mutatingadmissionpolicies`,
      mutatingPolicy(
        labelled,
        "Fail",
        `Object{metadata: Object.metadata{labels: {"mutated-by": "${labelled}"}}}`,
      ),
    );
    // Reads a key configmaps here never have: a CEL runtime error on every call, let through.
    await create(
      `${group}/mutatingadmissionpolicies`,
      mutatingPolicy(
        failing,
        "Ignore",
        'Object{metadata: Object.metadata{labels: {"x": object.data["missing"]}}}',
      ),
    );
    for (const policy of [labelled, failing]) {
      await create(`${group}/mutatingadmissionpolicybindings`, {
        metadata: { name: `${policy}-b` },
        spec: { policyName: policy, matchResources: inNs },
      } as { metadata: { name: string } });
    }
    // A validating policy of the same name and binding name: its counts must stay apart.
    await create(`${group}/validatingadmissionpolicies`, {
      metadata: { name: labelled },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: { resourceRules: configmaps },
        validations: [{ expression: "object.metadata.name != 'forbidden'" }],
      },
    } as { metadata: { name: string } });
    await create(`${group}/validatingadmissionpolicybindings`, {
      metadata: { name: `${labelled}-b` },
      spec: { policyName: labelled, validationActions: ["Deny"], matchResources: inNs },
    } as { metadata: { name: string } });

    // New policies take a moment to be enforced: create configmaps until one comes back
    // mutated and the apiserver has counted the failing policy's error too.
    let n = 0;
    await expect
      .poll(
        async () => {
          const res = await kube.request("POST", `/api/v1/namespaces/${ns}/configmaps`, {
            metadata: { name: `cm-${n++}` },
          });
          const labels = (
            JSON.parse(res.body) as { metadata?: { labels?: Record<string, string> } }
          ).metadata?.labels;
          const m = foldAdmissionMetrics((await kube.request("GET", "/metrics")).body);
          return (
            labels?.["mutated-by"] === labelled &&
            (m.policies.get(policyKey("MutatingAdmissionPolicy", failing, `${failing}-b`))
              ?.evaluationErrors ?? 0) > 0
          );
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    // The validating policy has an informer of its own: it may be enforced a moment later than
    // the mutating ones. Retry until the forbidden name is refused (a refusal is the one check
    // the apiserver counts for it; validation runs before the store sees an existing name).
    await expect
      .poll(
        async () =>
          (
            await kube.request("POST", `/api/v1/namespaces/${ns}/configmaps`, {
              metadata: { name: "forbidden" },
            })
          ).status,
        { timeout: 20_000 },
      )
      .toBe(422);

    // The apiserver's own counts, read after the last request that reaches these policies.
    const metrics = foldAdmissionMetrics((await kube.request("GET", "/metrics")).body);
    const good = metrics.policies.get(
      policyKey("MutatingAdmissionPolicy", labelled, `${labelled}-b`),
    )!;
    const bad = metrics.policies.get(
      policyKey("MutatingAdmissionPolicy", failing, `${failing}-b`),
    )!;
    const validating = metrics.policies.get(
      policyKey("ValidatingAdmissionPolicy", labelled, `${labelled}-b`),
    )!;
    // Mutations are counted, success included; the failing one errs on every call.
    expect(good.checks).toBeGreaterThanOrEqual(2);
    expect(good.evaluationErrors).toBe(0);
    expect(bad.evaluationErrors).toBe(bad.checks);
    expect(bad.errors).toEqual({ invalid_error: bad.checks });
    expect(validating.checks).toBe(1);

    // The failing policy's page: its card shows the apiserver's numbers and says why.
    // The dashboard reads /metrics now: every page below shows these counts on its first read.
    await dashboardApi.scrapeMetrics();
    await page.goto(`/policies/mutatingadmissionpolicies/${failing}`);
    const badRow = page.getByTestId(`policy-health-MutatingAdmissionPolicy-${failing}-b`);
    await expect(badRow.getByTestId("policy-checks")).toHaveText(String(bad.checks));
    await expect(badRow.getByTestId("policy-errors")).toHaveText(String(bad.evaluationErrors));
    await expect(badRow).toHaveAttribute("data-severity", "high");
    await expect(badRow.locator('[data-code="errors"]')).toContainText(
      "failurePolicy Ignore let those requests through unmutated",
    );
    await expect(badRow).toContainText(`invalid_error ${bad.checks}`);
    await expect(badRow.getByRole("link", { name: "matrix" })).toHaveAttribute(
      "href",
      `/hooks/MutatingAdmissionPolicy/${failing}/${failing}-b`,
    );
    await expect(badRow.getByRole("link", { name: "decisions" })).toHaveAttribute(
      "href",
      `/decisions?policy=${failing}&phase=mutating`,
    );
    await page.screenshot({ path: "e2e/artifacts/health-map-card.png", fullPage: true });

    // The working policy's binding page: counted, nothing failing.
    await page.goto(`/policies/mutatingadmissionpolicybindings/${labelled}-b`);
    const goodRow = page.getByTestId(`policy-health-MutatingAdmissionPolicy-${labelled}-b`);
    await expect(goodRow.getByTestId("policy-checks")).toHaveText(String(good.checks));
    await expect(goodRow.getByTestId("policy-errors")).toHaveText("0");
    await expect(goodRow.locator('[data-code="errors"]')).toHaveCount(0);
    // Only the mutating binding: the validating one of the same name is not mixed in.
    await expect(
      page.getByTestId(`policy-health-ValidatingAdmissionPolicy-${labelled}-b`),
    ).toHaveCount(0);

    // The card leads to the Health page, where the policies are ranked worst first.
    await page.goto(`/policies/mutatingadmissionpolicies/${failing}`);
    await badRow.getByRole("link", { name: "on the Health page" }).click();
    await expect(page).toHaveURL(/\/health#/);
    const pageBad = page.locator(
      `[id="health-policy-MutatingAdmissionPolicy-${failing}-${failing}-b"]`,
    );
    await expect(pageBad).toHaveAttribute("aria-current", "location");
    await expect(pageBad.getByTestId("policy-checks")).toHaveText(String(bad.checks));
    await expect(pageBad).toHaveAttribute("data-severity", "high");
    const pageGood = page.locator(
      `[id="health-policy-MutatingAdmissionPolicy-${labelled}-${labelled}-b"]`,
    );
    await expect(pageGood.getByTestId("policy-checks")).toHaveText(String(good.checks));
    const pageValidating = page.locator(
      `[id="health-policy-ValidatingAdmissionPolicy-${labelled}-${labelled}-b"]`,
    );
    await expect(pageValidating.getByTestId("policy-checks")).toHaveText("1");
    await expect(pageValidating).toContainText("deny 1");
    const order = await page
      .getByRole("table", { name: "Admission policies" })
      .locator("tbody tr")
      .evaluateAll((rows) => rows.map((r) => r.id));
    expect(
      order.indexOf(`health-policy-MutatingAdmissionPolicy-${failing}-${failing}-b`),
    ).toBeLessThan(
      order.indexOf(`health-policy-MutatingAdmissionPolicy-${labelled}-${labelled}-b`),
    );
    await page.screenshot({ path: "e2e/artifacts/health-map.png", fullPage: true });
    // The binding's matrix column knows the mutating binding.
    await pageBad.getByRole("link", { name: "matrix" }).click();
    await expect(page.getByRole("heading", { name: `${failing}-b` })).toBeVisible();
    await expect(page.getByText("No such hook in this cluster")).toHaveCount(0);
    await expect(page.locator(".page-head")).toContainText(`MutatingAdmissionPolicy ${failing}`);
    await page.goBack();
    // And back to the policy.
    await pageBad.getByRole("link", { name: failing, exact: true }).click();
    await expect(page).toHaveURL(`/policies/mutatingadmissionpolicies/${failing}`);
  });
});
