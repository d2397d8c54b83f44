import { createRequire } from "node:module";
import type { Page } from "@playwright/test";
import { test, expect, type Kube } from "../test/e2e/fixtures";
import { createConfig, deleteConfig, getConfig, uniqueName } from "../test/e2e/webhooks-helpers";
import { TEMPLATE_REREAD_MS } from "@/lib/queries/backend-pods";

const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/** Serious or critical axe violations on the page (rule id and the first target). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: axePath });
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: () => Promise<{
            violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>;
          }>;
        };
      }
    ).axe;
    const r = await axe.run();
    return r.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${v.nodes[0]?.target.join(" ") ?? ""}`);
  });
}

async function createNamespace(kube: Kube, name: string, labels: Record<string, string>) {
  const res = await kube.request("POST", "/api/v1/namespaces", {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, labels },
  });
  if (res.status !== 201) throw new Error(`namespace ${name}: ${res.status} ${res.body}`);
}

/** A namespace of this run holding a webhook's backend Service `webhook` (selector app=webhook). */
async function createBackendNamespace(kube: Kube, ns: string, run: string) {
  await createNamespace(kube, ns, { "e2e-run": run });
  const svc = await kube.request("POST", `/api/v1/namespaces/${ns}/services`, {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "webhook", namespace: ns },
    spec: { selector: { app: "webhook" }, ports: [{ port: 443, targetPort: 8443 }] },
  });
  if (svc.status !== 201) throw new Error(`service ${ns}/webhook: ${svc.status} ${svc.body}`);
}

/** Adds labels with a read and a conditional replace (the stored resourceVersion is the precondition). */
async function labelNamespace(kube: Kube, name: string, labels: Record<string, string>) {
  const got = await kube.request("GET", `/api/v1/namespaces/${name}`);
  const ns = JSON.parse(got.body) as { metadata: { labels?: Record<string, string> } };
  ns.metadata.labels = { ...ns.metadata.labels, ...labels };
  const res = await kube.request("PUT", `/api/v1/namespaces/${name}`, ns);
  if (res.status !== 200) throw new Error(`label ${name}: ${res.status} ${res.body}`);
}

/** A hook on pod creation, limited to this test's namespaces by a run label. */
function podHook(name: string, run: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    admissionReviewVersions: ["v1"],
    sideEffects: "None",
    clientConfig: { url: `https://127.0.0.1:9/hooks/${name}` },
    rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
    namespaceSelector: {
      matchExpressions: [
        { key: "runlevel", operator: "NotIn", values: ["0", "1"] },
        { key: "e2e-run", operator: "In", values: [run] },
      ],
    },
    ...extra,
  };
}

test.describe("namespaces and exemptions", () => {
  test("a namespace labelled runlevel=0 flips from intercepted to exempt, live", async ({
    page,
    kube,
    cleanup,
  }) => {
    const run = uniqueName("rl");
    const ns = `${run}-app`;
    const cfg = uniqueName("e2e-matrix");
    cleanup.defer(async () => {
      await deleteConfig(kube, "validatingwebhookconfigurations", cfg);
      await kube.request("DELETE", `/api/v1/namespaces/${ns}`);
    });
    await createNamespace(kube, ns, { "e2e-run": run });
    await createConfig(kube, "validatingwebhookconfigurations", cfg, [
      podHook(`guard.${cfg}.example.com`, run, { failurePolicy: "Ignore" }),
    ]);
    await page.goto(`/namespaces?hook=${cfg}&ns=${run}`);
    const grid = page.getByRole("grid", { name: /Exemption matrix/ });
    const cell = grid.getByRole("gridcell", {
      name: `${ns} × guard.${cfg}.example.com: intercepted`,
    });
    await expect(cell).toBeVisible();
    await expect(grid.getByRole("rowheader", { name: /no runlevel label/ })).toBeVisible();
    // The column header is as tall as the hook's name needs: the name is shown whole.
    const head = grid
      .getByRole("columnheader")
      .getByRole("link", { name: `guard.${cfg}.example.com` });
    const [whole, shown] = await head.evaluate((a) => [a.scrollHeight, a.clientHeight]);
    expect(whole, "the hook's name is not cut").toBeLessThanOrEqual(shown ?? 0);
    await page.screenshot({ path: "e2e/artifacts/namespaces-matrix.png" });

    // Focus shows the deciding requirement.
    await cell.focus();
    await expect(page.locator("#cell-detail")).toContainText("intercepted");
    await expect(page.locator("#cell-detail")).toContainText("label runlevel is absent");

    expect(await axeViolations(page)).toEqual([]);

    await labelNamespace(kube, ns, { runlevel: "0" });
    const exempt = grid.getByRole("gridcell", {
      name: `${ns} × guard.${cfg}.example.com: exempt`,
    });
    await expect(exempt).toBeVisible({ timeout: 5_000 });
    await expect(grid.getByRole("rowheader", { name: /runlevel=0 · 1 namespace/ })).toBeVisible();
    await exempt.focus();
    await expect(page.locator("#cell-detail")).toContainText("runlevel notin (0,1)");
    await expect(page.locator("#cell-detail")).toContainText('label runlevel is "0"');

    // The per-namespace page, from the row header, lists the hook among those exempting it.
    await grid.getByRole("link", { name: ns }).click();
    await expect(page.getByRole("heading", { name: `Namespace ${ns}` })).toBeVisible();
    await expect(
      page.getByRole("heading", { name: /Exempt this namespace \(\d+\)/ }),
    ).toBeVisible();
    await expect(
      page.getByRole("row", { name: new RegExp(`guard\\.${cfg}\\.example\\.com`) }),
    ).toContainText("runlevel notin (0,1)");
    expect(await axeViolations(page)).toEqual([]);

    // The per-hook page groups the namespace under runlevel 0 as exempt.
    await page.getByRole("link", { name: `guard.${cfg}.example.com` }).click();
    await expect(page.getByRole("row", { name: /^0 0 1/ })).toContainText(ns);
    expect(await axeViolations(page)).toEqual([]);
  });

  test("CONNECT is drawn for the subresources it reaches: a hook on pods/exec shows, one on pods does not", async ({
    page,
    kube,
    cleanup,
  }) => {
    const run = uniqueName("cx");
    const ns = `${run}-app`;
    const cfg = uniqueName("e2e-connect");
    const exec = `exec.${cfg}.example.com`;
    const pods = `pods.${cfg}.example.com`;
    const labelled = `labelled.${cfg}.example.com`;
    cleanup.defer(async () => {
      await deleteConfig(kube, "validatingwebhookconfigurations", cfg);
      await kube.request("DELETE", `/api/v1/namespaces/${ns}`);
    });
    await createNamespace(kube, ns, { "e2e-run": run });
    await createConfig(kube, "validatingwebhookconfigurations", cfg, [
      podHook(exec, run, {
        failurePolicy: "Ignore",
        rules: [
          {
            operations: ["CONNECT"],
            apiGroups: [""],
            apiVersions: ["v1"],
            resources: ["pods/exec"],
          },
        ],
      }),
      podHook(pods, run, {
        failurePolicy: "Ignore",
        rules: [{ operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
      }),
      // Never called for a CONNECT: the options object has no labels for its objectSelector.
      podHook(labelled, run, {
        failurePolicy: "Ignore",
        objectSelector: { matchExpressions: [{ key: "app", operator: "DoesNotExist" }] },
        rules: [
          {
            operations: ["CONNECT"],
            apiGroups: [""],
            apiVersions: ["v1"],
            resources: ["pods/exec"],
          },
        ],
      }),
    ]);
    await page.goto(`/namespaces?hook=${cfg}&ns=${run}`);
    const grid = page.getByRole("grid", { name: /Exemption matrix/ });
    await expect(
      grid.getByRole("gridcell", { name: `${ns} × ${pods}: intercepted` }),
    ).toBeVisible();
    await expect(
      grid.getByRole("gridcell", { name: new RegExp(`× ${exec.replace(/\./g, "\\.")}`) }),
    ).toHaveCount(0);

    // Choosing CONNECT moves the request to pods/exec, and the URL keeps it.
    await page.getByRole("combobox", { name: "Operation" }).selectOption("CONNECT");
    await expect(page.getByRole("combobox", { name: "Request" })).toHaveValue("pods/exec");
    await expect(page).toHaveURL(/resource=pods%2Fexec|resource=pods\/exec/);
    await expect(
      grid.getByRole("gridcell", { name: `${ns} × ${exec}: intercepted` }),
    ).toBeVisible();
    await expect(
      grid.getByRole("gridcell", { name: new RegExp(`× ${pods.replace(/\./g, "\\.")}`) }),
    ).toHaveCount(0);
    await expect(page.getByText(/for pods\/exec CONNECT/)).toBeVisible();
    await expect(
      grid.getByRole("gridcell", { name: new RegExp(`× ${labelled.replace(/\./g, "\\.")}`) }),
    ).toHaveCount(0);

    // Back to a resource: the operation leaves CONNECT with it.
    await page.getByRole("combobox", { name: "Request" }).selectOption("configmaps");
    await expect(page.getByRole("combobox", { name: "Operation" })).toHaveValue("CREATE");
  });

  test("a hook page's 'In the matrix' opens on its column for the request the page shows", async ({
    page,
    kube,
    cleanup,
  }) => {
    const run = uniqueName("hl");
    const ns = `${run}-app`;
    const cfg = uniqueName("e2e-link");
    const cm = `cm.${cfg}.example.com`;
    cleanup.defer(async () => {
      await deleteConfig(kube, "validatingwebhookconfigurations", cfg);
      await kube.request("DELETE", `/api/v1/namespaces/${ns}`);
    });
    await createNamespace(kube, ns, { "e2e-run": run });
    await createConfig(kube, "validatingwebhookconfigurations", cfg, [
      podHook(cm, run, {
        failurePolicy: "Ignore",
        rules: [
          {
            operations: ["CREATE"],
            apiGroups: [""],
            apiVersions: ["v1"],
            resources: ["configmaps"],
          },
        ],
      }),
      // A neighbour whose name holds the first's: not its column.
      podHook(`x${cm}`, run, { failurePolicy: "Ignore" }),
    ]);
    await page.goto(`/hooks/ValidatingWebhookConfiguration/${cfg}/${cm}?resource=configmaps`);
    await page.getByRole("link", { name: "In the matrix" }).click();
    await expect(page.getByRole("combobox", { name: "Request" })).toHaveValue("configmaps");
    const grid = page.getByRole("grid", { name: /Exemption matrix/ });
    // The link opens on every namespace, and the grid draws only the rows in view: other tests'
    // namespaces may sort before this one, so it is found by name.
    await page.getByRole("searchbox", { name: "Namespace" }).fill(run);
    await expect(page).toHaveURL(new RegExp(`ns=${run}`));
    await expect(grid.getByRole("gridcell", { name: `${ns} × ${cm}: intercepted` })).toBeVisible();
    await expect(grid.getByRole("columnheader", { name: cm, exact: true })).toBeVisible();
    await expect(grid.getByRole("columnheader", { name: `x${cm}`, exact: true })).toHaveCount(0);
    await expect(page.getByTestId("only-hook")).toContainText(`only ${cm} in ${cfg}`);
    // Clearing it shows the neighbour too.
    await page.getByRole("button", { name: "Show every hook" }).click();
    await expect(grid.getByRole("columnheader", { name: `x${cm}`, exact: true })).toBeVisible();
    // From the default request (pods), the column still shows: its rules do not match pods.
    await page.goto(`/hooks/ValidatingWebhookConfiguration/${cfg}/${cm}`);
    await page.getByRole("link", { name: "In the matrix" }).click();
    await expect(grid.getByRole("columnheader", { name: cm })).toBeVisible();
  });

  test("arrow keys move between cells and skip group headings", async ({ page, kube, cleanup }) => {
    const run = uniqueName("kb");
    const cfg = uniqueName("e2e-keys");
    const a = `${run}-a`;
    const b = `${run}-b`;
    cleanup.defer(async () => {
      await deleteConfig(kube, "validatingwebhookconfigurations", cfg);
      await kube.request("DELETE", `/api/v1/namespaces/${a}`);
      await kube.request("DELETE", `/api/v1/namespaces/${b}`);
    });
    await createNamespace(kube, a, { "e2e-run": run, runlevel: "0" });
    await createNamespace(kube, b, { "e2e-run": run });
    await createConfig(kube, "validatingwebhookconfigurations", cfg, [
      podHook(`one.${cfg}.example.com`, run, { failurePolicy: "Ignore" }),
      podHook(`two.${cfg}.example.com`, run, { failurePolicy: "Ignore" }),
    ]);
    await page.goto(`/namespaces?hook=${cfg}&ns=${run}`);
    // The whole matrix, not the server's first screen it replaces while keys are pressed.
    await expect(page.getByText(/2 namespaces × 2 hooks/)).toBeVisible();
    const grid = page.getByRole("grid");
    const first = grid.getByRole("gridcell", { name: `${a} × one.${cfg}.example.com: exempt` });
    await first.focus();
    await page.keyboard.press("ArrowRight");
    await expect(
      grid.getByRole("gridcell", { name: `${a} × two.${cfg}.example.com: exempt` }),
    ).toBeFocused();
    await page.keyboard.press("ArrowDown");
    await expect(
      grid.getByRole("gridcell", { name: `${b} × two.${cfg}.example.com: intercepted` }),
    ).toBeFocused();
    await page.keyboard.press("Home");
    await expect(
      grid.getByRole("gridcell", { name: `${b} × one.${cfg}.example.com: intercepted` }),
    ).toBeFocused();
    await page.keyboard.press("ArrowUp");
    await expect(first).toBeFocused();
  });

  test("a new unlabelled namespace caught by a fail-closed hook is called out", async ({
    page,
    kube,
    cleanup,
  }) => {
    const run = uniqueName("nw");
    const cfg = uniqueName("e2e-new");
    await createConfig(kube, "validatingwebhookconfigurations", cfg, [
      podHook(`strict.${cfg}.example.com`, run, { failurePolicy: "Fail" }),
    ]);
    const ns = `${run}-late`;
    cleanup.defer(async () => {
      await deleteConfig(kube, "validatingwebhookconfigurations", cfg);
      await kube.request("DELETE", `/api/v1/namespaces/${ns}`);
    });
    await page.goto(`/namespaces?hook=${cfg}&ns=${run}`);
    await expect(page.getByText(/namespaces × 1 hooks/)).toBeVisible();
    await createNamespace(kube, ns, { "e2e-run": run });
    const callout = page
      .getByRole("status")
      .filter({ hasText: "New namespaces without a runlevel" });
    await expect(callout).toContainText(ns);
    await expect(callout).toContainText(`strict.${cfg}.example.com`);
  });

  test("a backend's pod labels come from its Deployment's template, whose opt-out label exempts it, read again when the template changes", async ({
    page,
    kube,
    cleanup,
  }) => {
    test.setTimeout(TEMPLATE_REREAD_MS + 90_000);
    const run = uniqueName("pl");
    const ns = `${run}-hooks`;
    const cfg = uniqueName("e2e-podlabels");
    const hookName = `optout.${cfg}.example.com`;
    const skip = "webhook.example.com/skip";
    cleanup.defer(async () => {
      await deleteConfig(kube, "validatingwebhookconfigurations", cfg);
      await kube.request("DELETE", `/api/v1/namespaces/${ns}`);
    });
    await createBackendNamespace(kube, ns, run);
    // The opt-out label is on the pod template only, not in the Service's selector; no replicas.
    const deploy = await kube.request("POST", `/apis/apps/v1/namespaces/${ns}/deployments`, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "webhook", namespace: ns },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: "webhook" } },
        template: {
          metadata: { labels: { app: "webhook", [skip]: "true" } },
          spec: { containers: [{ name: "webhook", image: "portcullis.invalid/webhook:1" }] },
        },
      },
    });
    expect(deploy.status).toBe(201);
    await createConfig(kube, "validatingwebhookconfigurations", cfg, [
      podHook(hookName, run, {
        clientConfig: { service: { namespace: ns, name: "webhook", path: "/validate" } },
        failurePolicy: "Fail",
        objectSelector: { matchExpressions: [{ key: skip, operator: "NotIn", values: ["true"] }] },
      }),
    ]);
    // The page's timers run on a clock the test moves on: the re-read comes without waiting.
    await page.clock.install();
    await page.goto("/deadlocks");
    const row = page.getByRole("row", { name: new RegExp(hookName) });
    await expect(row).toBeVisible();
    // Judged by the template's labels, which the hook exempts: not by the selector's.
    await expect(row).not.toContainText("(itself)");
    await expect(
      page
        .getByRole("listitem")
        .filter({ hasText: "Fail-closed webhook intercepts its own backend" })
        .filter({ hasText: hookName }),
    ).toHaveCount(0);
    const header = page.getByRole("columnheader");
    const column = await header.evaluateAll((hs) =>
      hs.findIndex((h) => h.textContent === "Pod labels from"),
    );
    expect(column).toBeGreaterThan(0);
    // The Deployment's template, which stands for its ReplicaSets'.
    await expect(row.getByRole("cell").nth(column)).toHaveText("workload templates (1)");
    // The opt-out label taken off the template (no pod runs, no endpoint changes): read again
    // on its own, and the backend is now intercepted by its own fail-closed hook.
    const fresh = await kube.request("GET", `/apis/apps/v1/namespaces/${ns}/deployments/webhook`);
    const stored = JSON.parse(fresh.body) as {
      spec: { template: { metadata: { labels: Record<string, string> } } };
    };
    stored.spec.template.metadata.labels = { app: "webhook" };
    const put = await kube.request(
      "PUT",
      `/apis/apps/v1/namespaces/${ns}/deployments/webhook`,
      stored,
    );
    expect(put.status).toBe(200);
    await page.clock.fastForward(TEMPLATE_REREAD_MS);
    await expect(row).toContainText("(itself)", { timeout: TEMPLATE_REREAD_MS + 15_000 });
  });

  test("a fail-closed hook whose backend it intercepts is flagged, fixed from the editor, and clears", async ({
    page,
    kube,
    cleanup,
  }) => {
    const run = uniqueName("dl");
    const ns = `${run}-hooks`;
    const cfg = uniqueName("e2e-deadlock");
    const hookName = `self.${cfg}.example.com`;
    cleanup.defer(async () => {
      await deleteConfig(kube, "validatingwebhookconfigurations", cfg);
      await kube.request("DELETE", `/api/v1/namespaces/${ns}`);
    });
    await createBackendNamespace(kube, ns, run);
    const created = await createConfig(kube, "validatingwebhookconfigurations", cfg, [
      podHook(hookName, run, {
        clientConfig: { service: { namespace: ns, name: "webhook", path: "/validate" } },
      }),
    ]);
    await page.goto("/deadlocks");
    const finding = page
      .getByRole("listitem")
      .filter({ hasText: "Fail-closed webhook intercepts its own backend" })
      .filter({ hasText: hookName });
    await expect(finding).toBeVisible();
    await expect(finding).toContainText(`in ${ns} that serve it`);
    // The map marks the hook and its backend (no ready endpoints: no pods run here).
    await expect(
      page.locator(`[data-node="ValidatingWebhookConfiguration:${cfg}/${hookName}/0"] rect`),
    ).toHaveAttribute("stroke", "#b42318");
    await expect(page.getByRole("row", { name: new RegExp(hookName) })).toContainText(
      `${hookName} (itself)`,
    );
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: "e2e/artifacts/deadlocks.png", fullPage: true });

    await finding.getByRole("link", { name: "Open as a proposed edit" }).click();
    await expect(page.getByTestId("proposal")).toContainText(`exclude the backend namespace ${ns}`);
    await expect(page.getByRole("tab", { name: "Diff vs live" })).toHaveAttribute(
      "aria-selected",
      "true",
    );
    await page.getByRole("button", { name: "Dry run" }).click();
    await expect(page.getByRole("region", { name: "Dry run result" })).toContainText(
      "accepted by the apiserver",
    );
    // Nothing is stored by the dry run.
    const before = await getConfig(kube, "validatingwebhookconfigurations", cfg);
    expect(before?.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    await page.screenshot({ path: "e2e/artifacts/namespaces-proposed-fix.png", fullPage: true });
    await page.getByRole("button", { name: "Apply" }).click();
    await expect
      .poll(async () => {
        const stored = await getConfig(kube, "validatingwebhookconfigurations", cfg);
        return stored?.webhooks?.[0]?.namespaceSelector;
      })
      .toEqual({
        matchExpressions: [
          { key: "runlevel", operator: "NotIn", values: ["0", "1"] },
          { key: "e2e-run", operator: "In", values: [run] },
          { key: "kubernetes.io/metadata.name", operator: "NotIn", values: [ns] },
        ],
      });

    await page.goto("/deadlocks");
    await expect(page.getByRole("row", { name: new RegExp(hookName) })).toBeVisible();
    await expect(
      page
        .getByRole("listitem")
        .filter({ hasText: "Fail-closed webhook intercepts its own backend" })
        .filter({ hasText: hookName }),
    ).toHaveCount(0);
  });

  test("a namespace's Pod Security labels: the standards they select, and Predict's verdict on a pod there", async ({
    page,
    kube,
    cleanup,
  }) => {
    const ns = `${uniqueName("pss")}-app`;
    cleanup.defer(async () => {
      await kube.request("DELETE", `/api/v1/namespaces/${ns}`);
    });
    await createNamespace(kube, ns, {
      "pod-security.kubernetes.io/enforce": "baseline",
      "pod-security.kubernetes.io/enforce-version": "v1.30",
      "pod-security.kubernetes.io/audit": "restricted",
    });
    await page.goto(`/namespaces/${ns}`);
    const panel = page.getByTestId("pod-security-standards");
    // Warn follows the stricter enforce standard and its version; audit is its own.
    await expect(panel).toContainText("Enforcebaseline:v1.30 pods that violate it are refused");
    await expect(panel).toContainText("Warnbaseline:v1.30");
    await expect(panel).toContainText("Auditrestricted:latest");
    expect(await axeViolations(page)).toEqual([]);
    await panel.getByTestId("pod-security-predict").click();
    await expect(page.getByTestId("pod-security")).toContainText("Enforcebaseline:v1.30");
    await expect(page.getByTestId("pod-security-verdict")).toHaveText("Allowed");
    // A privileged container: refused, as the apiserver refuses it.
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "shell", namespace: ns },
      spec: {
        hostPID: true,
        containers: [{ name: "shell", image: "busybox" }],
      },
    };
    await page.getByLabel("Object", { exact: true }).fill(JSON.stringify(pod, null, 2));
    const message = `pods "shell" is forbidden: violates PodSecurity "baseline:v1.30": host namespaces (hostPID=true)`;
    await expect(page.getByTestId("pod-security-verdict")).toContainText(`Refused: 403 ${message}`);
    const res = await kube.request("POST", `/api/v1/namespaces/${ns}/pods?dryRun=All`, pod);
    expect(res.status).toBe(403);
    expect((JSON.parse(res.body) as { message: string }).message).toBe(message);
  });
});
