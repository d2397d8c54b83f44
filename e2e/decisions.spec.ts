/**
 * The decision feed against the real control plane: harness webhooks that allow, patch, deny and
 * time out (Ignore and Fail), and ValidatingAdmissionPolicies that deny and warn. Every outcome
 * produced through the apiserver appears live in Chromium with the right hook, outcome and
 * message; the viewer is refused by RBAC.
 */
import { readFileSync } from "node:fs";
import type { Page } from "@playwright/test";
import { test, expect } from "../test/e2e/fixtures";
import {
  CASES,
  DENY_MESSAGE,
  VAP_DENY_MESSAGE,
  VAP_WARN_MESSAGE,
  startScenario,
  type Case,
  type Scenario,
} from "../test/decisions-scenario";
import { readStack } from "../cluster/harness/stack";
import { httpsRequest } from "../cluster/https-json";
import { policyHeaders } from "../test/api-headers";
import { serious } from "../test/e2e/axe";
import { summarizeTallies, type DecisionTallyResponse } from "../lib/decisions/tally";

/** A case's outcome, its message cell, and (where the cell shows a gist) the full message. */
interface Expected {
  outcome: string;
  message?: string | RegExp;
  fullMessage?: RegExp;
}

const EXPECTED: Record<Case, Expected> = {
  allow: { outcome: "admitted" },
  patch: { outcome: "mutated" },
  deny: { outcome: "denied", message: DENY_MESSAGE },
  "slow-ignore": { outcome: "failed-open" },
  // The cell starts at why the call failed; the whole message is its title.
  "slow-fail": {
    outcome: "timeout",
    message: /^(?!failed to call webhook).*deadline exceeded/,
    fullMessage: /^failed to call webhook: Post "https:[^"]+": .*deadline exceeded/,
  },
  "vap-deny": { outcome: "rejected", message: VAP_DENY_MESSAGE },
  "vap-warn": { outcome: "warned", message: VAP_WARN_MESSAGE },
};

let scenario: Scenario;

test.beforeAll(async () => {
  scenario = await startScenario(readStack());
});

test.afterAll(async () => {
  await scenario?.cleanup();
});

function row(page: Page, c: Case) {
  return page.locator(
    `table.decisions tr[data-hook="${scenario.hookOf[c]}"][data-outcome="${EXPECTED[c].outcome}"]`,
  );
}

test("every admission outcome appears live in the feed with its hook, outcome and message", async ({
  page,
}) => {
  // The last step waits for an apiserver span, which a busy machine exports late.
  test.setTimeout(150_000);
  // Markup in a message is text: nothing in it may run (its <img onerror> would alert).
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(`/decisions?namespace=${scenario.namespace}`);
  await expect(page.locator(".live")).toHaveText("live");
  for (const c of CASES) {
    await scenario.produce(c);
    // No reload: the row arrives over the stream (the apiserver batches audit events for ≤ 1 s).
    const r = row(page, c).first();
    await expect(r).toBeVisible({ timeout: 5_000 });
    const message = EXPECTED[c].message;
    if (message) await expect(r.locator("td.msg")).toHaveText(message);
    const full = EXPECTED[c].fullMessage;
    if (full) await expect(r.locator("td.msg")).toHaveAttribute("title", full);
  }
  // Timeouts and fail-opens stand out.
  await expect(row(page, "slow-fail").first().locator(".outcome")).toHaveClass(/tone-alarm/);
  await expect(row(page, "slow-ignore").first().locator(".outcome")).toHaveClass(/tone-alarm/);
  await expect(page.getByRole("figure", { name: "Decisions over time by outcome" })).toContainText(
    "timeout",
  );

  // The detail drawer: parsed decision and the raw audit event as text.
  await row(page, "deny").first().getByRole("button").click();
  const drawer = page.getByRole("dialog", { name: "Decision detail" });
  await expect(drawer).toContainText(scenario.hookOf.deny);
  await expect(drawer).toContainText(DENY_MESSAGE);
  await expect(drawer.getByTestId("raw-event")).toContainText('"auditID"');
  await expect(drawer.getByTestId("raw-event")).toContainText(
    `"namespace": "${scenario.namespace}"`,
  );
  expect(page.url()).toMatch(/[?&]d=\d+/);
  // A denial read from the response status names only the webhook: its decisions are linked.
  await expect(drawer.getByRole("link", { name: "all its decisions" })).toHaveAttribute(
    "href",
    `/decisions?hook=${encodeURIComponent(scenario.hookOf.deny)}`,
  );
  // …and its configuration is looked up by the webhook's name in the webhook list.
  await expect(drawer.getByRole("link", { name: "find the webhook in the list" })).toHaveAttribute(
    "href",
    `/webhooks?q=${encodeURIComponent(scenario.hookOf.deny)}`,
  );

  // A mutating call names its configuration: the drawer links to its page.
  await row(page, "patch").first().getByRole("button").click();
  await expect(
    drawer.getByRole("link", { name: `${scenario.namespace}-mutating` }),
  ).toHaveAttribute(
    "href",
    `/webhooks/mutatingwebhookconfigurations/${scenario.namespace}-mutating`,
  );
  // A policy's decision links to the policy and to the binding that put it in force.
  await row(page, "vap-deny").first().getByRole("button").click();
  await expect(
    drawer.getByRole("link", { name: scenario.hookOf["vap-deny"], exact: true }),
  ).toHaveAttribute("href", `/policies/validatingadmissionpolicies/${scenario.hookOf["vap-deny"]}`);
  await expect(
    drawer.getByRole("link", { name: `${scenario.hookOf["vap-deny"]}-binding` }),
  ).toHaveAttribute(
    "href",
    `/policies/validatingadmissionpolicybindings/${scenario.hookOf["vap-deny"]}-binding`,
  );
  // A call's span follows its audit event by seconds (the apiserver exports spans every 5 s):
  // the drawer of a decision opened as soon as it is in the feed picks the span up while open.
  const made = JSON.parse((await scenario.produce("patch")).body) as {
    metadata: { name: string };
  };
  const fresh = row(page, "patch").filter({ hasText: made.metadata.name });
  await expect(fresh).toHaveCount(1, { timeout: 5_000 });
  await fresh.getByRole("button").click();
  await expect(drawer).toContainText(made.metadata.name);
  await expect(drawer.getByTestId("traced-duration")).toContainText(
    "the apiserver's trace of this call",
    // Its batch exporter sends every 5 s; a busy machine delays a batch by several periods (the
    // drawer reads again for a minute after the call).
    { timeout: 65_000 },
  );
  await drawer.getByRole("button", { name: "Close" }).click();
  await expect(drawer).toBeHidden();
  expect(dialogs).toEqual([]);
});

test("pause holds new decisions until resume; repeats are grouped; filters live in the URL", async ({
  page,
}) => {
  await page.goto(`/decisions?namespace=${scenario.namespace}&outcome=denied`);
  await expect(page.locator(".live")).toHaveText("live");
  const count = (t: string | null) => (t ? Number(t.slice(1)) : 1);
  // The denials already in the feed (earlier tests share the namespace), folded into one row.
  const shown = async () =>
    (await row(page, "deny").count()) === 0
      ? 0
      : count(await row(page, "deny").first().locator("td.num").textContent());
  const initial = await shown();
  await scenario.produce("deny");
  // Wait for this denial itself, not just for a row of earlier ones.
  await expect.poll(shown, { timeout: 5_000 }).toBe(initial + 1);
  const before = await row(page, "deny").first().locator("td.num").textContent();

  await page.getByRole("button", { name: "Pause" }).click();
  const res = await scenario.create("deny", `held-${Date.now()}`);
  expect(res.status).toBe(403);
  const resume = page.getByRole("button", { name: /Resume \(\d+ new\)/ });
  await expect(resume).toBeVisible({ timeout: 5_000 });
  // Held, not shown: the row keeps its count while paused.
  await expect(row(page, "deny").first().locator("td.num")).toHaveText(before ?? "");
  const held = Number(/\((\d+) new\)/.exec((await resume.textContent()) ?? "")?.[1]);
  await resume.click();
  // Adjacent identical denials fold into one row with a count, now including the held ones.
  await expect(row(page, "deny")).toHaveCount(1);
  await expect(row(page, "deny").locator("td.num")).toHaveText(`×${count(before) + held}`);
  // Only denials are shown: the outcome filter came from the URL.
  await expect(page.locator("table.decisions tbody tr:not([data-outcome='denied'])")).toHaveCount(
    0,
  );

  // Toggling an outcome rewrites the URL, and the feed follows it.
  await page
    .getByRole("group", { name: "Outcomes" })
    .getByRole("button", { name: "timeout" })
    .click();
  await expect(page).toHaveURL(/outcome=denied&outcome=timeout/);
});

test("a webhook's detail page lists its recent decisions and links to the filtered feed", async ({
  page,
}) => {
  await scenario.produce("deny");
  await page.goto(`/webhooks/validatingwebhookconfigurations/${scenario.namespace}-validating`);
  const recent = page.getByRole("region", { name: `Recent decisions of ${scenario.hookOf.deny}` });
  await expect(recent.locator(".outcome").first()).toHaveText("denied");
  await recent.getByRole("link", { name: "open in the feed" }).click();
  await expect(page).toHaveURL(
    new RegExp(`/decisions\\?hook=${scenario.hookOf.deny.replace(/\./g, "\\.")}`),
  );
  await expect(row(page, "deny").first()).toBeVisible();
  // The link keeps the webhook's phase, shown in the form (a name may be in both kinds).
  await expect(page.getByLabel("Phase")).toHaveValue("validating");
  // …and the filtered feed leads on to the webhook's row in the list and its matrix column.
  const context = page.getByTestId("hook-context");
  await expect(context.getByRole("link", { name: "in the webhook list" })).toHaveAttribute(
    "href",
    `/webhooks?q=${encodeURIComponent(scenario.hookOf.deny)}`,
  );
  // A denial names only the webhook: no configuration to predict it in.
  await expect(context.getByRole("link", { name: "its prediction" })).toHaveCount(0);
  await context.getByRole("link", { name: "its column in the exemption matrix" }).click();
  await expect(
    page
      .getByRole("grid", { name: /Exemption matrix/ })
      .getByRole("columnheader")
      .getByRole("link", { name: scenario.hookOf.deny }),
  ).toBeVisible();
  // A mutating call names its configuration, so the feed filtered to that webhook can open its
  // prediction: a request the webhook is called for.
  await scenario.produce("patch");
  await page.goto(`/decisions?hook=${encodeURIComponent(scenario.hookOf.patch)}`);
  await page.getByTestId("hook-context").getByRole("link", { name: "its prediction" }).click();
  const note = page.getByTestId("hook-example");
  await expect(note).toHaveAttribute("data-called", "true");
  await expect(note).toContainText(`CREATE configmaps in namespace ${scenario.namespace}`);
  await expect(page.locator("[data-testid=call][data-focus]")).toHaveAttribute(
    "data-key",
    new RegExp(`^MutatingWebhookConfiguration:${scenario.namespace}-mutating/`),
  );
  // Filtered to a policy: its page and its prediction (with any of its bindings).
  const vap = scenario.hookOf["vap-deny"];
  await scenario.produce("vap-deny");
  await page.goto(`/decisions?policy=${encodeURIComponent(vap)}`);
  const policy = page.getByTestId("policy-context");
  await expect(policy.getByRole("link", { name: "its page" })).toHaveAttribute(
    "href",
    `/policies/validatingadmissionpolicies/${vap}`,
  );
  await expect(policy.getByRole("link", { name: "its prediction" })).toHaveAttribute(
    "href",
    `/predict?${new URLSearchParams({ for: `ValidatingAdmissionPolicy/${vap}/` }).toString()}`,
  );
});

test("a policy's page and its binding's page list the policy's recent decisions", async ({
  page,
}) => {
  const vap = scenario.hookOf["vap-warn"];
  await scenario.produce("vap-warn");
  await page.goto(`/policies/validatingadmissionpolicies/${vap}`);
  const recent = page.getByRole("region", { name: `Recent decisions of ${vap}` });
  await expect(recent.locator(".outcome").first()).toHaveText(/policy warned|policy audited/);
  await expect(recent).toContainText(VAP_WARN_MESSAGE);
  await expect(recent.getByRole("link", { name: "open in the feed" })).toHaveAttribute(
    "href",
    `/decisions?policy=${encodeURIComponent(vap)}&phase=validating`,
  );
  await page.goto(`/policies/validatingadmissionpolicybindings/${vap}-binding`);
  const through = page.getByRole("region", { name: `Recent decisions of ${vap}` });
  await expect(through.locator(".outcome").first()).toHaveText(/policy warned|policy audited/);
  // Another policy's decisions are not this one's.
  await expect(through).not.toContainText(VAP_DENY_MESSAGE);
});

test("the in-tree PodSecurity plugin's refusals and audit violations appear in the feed", async ({
  page,
  kube,
  cleanup,
}) => {
  const ns = `pss-feed-${Date.now().toString(36)}`;
  const created = await kube.request("POST", "/api/v1/namespaces", {
    metadata: {
      name: ns,
      labels: {
        "pod-security.kubernetes.io/enforce": "baseline",
        "pod-security.kubernetes.io/audit": "restricted",
      },
    },
  });
  expect(created.status).toBe(201);
  const pod = (name: string, hostPID: boolean) => ({
    metadata: { name },
    spec: { hostPID, containers: [{ name: "c", image: "registry.k8s.io/pause" }] },
  });
  const refused = `pods "bad" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostPID=true)`;
  cleanup.defer(async () => {
    await kube.request("DELETE", `/api/v1/namespaces/${ns}`);
  });
  // Until the namespace's default service account exists (before it, another plugin refuses).
  await expect
    .poll(
      async () => {
        const res = await kube.request("POST", `/api/v1/namespaces/${ns}/pods`, pod("bad", true));
        return (JSON.parse(res.body) as { message?: string }).message ?? "";
      },
      { timeout: 30_000 },
    )
    .toBe(refused);
  await page.goto(`/decisions?namespace=${ns}&policy=PodSecurity`);
  const denied = page.locator('table.decisions tr[data-hook="PodSecurity"][data-outcome="denied"]');
  await expect(denied.first()).toBeVisible({ timeout: 10_000 });
  await expect(denied.first().locator("td.msg")).toHaveAttribute("title", refused);
  // A pod it lets through under baseline still violates the audit standard (restricted).
  const ok = await kube.request("POST", `/api/v1/namespaces/${ns}/pods`, pod("ok", false));
  expect(ok.status).toBe(201);
  const audited = page.locator(
    'table.decisions tr[data-hook="PodSecurity"][data-outcome="audited"]',
  );
  await expect(audited.first()).toBeVisible({ timeout: 10_000 });
  await expect(audited.first().locator("td.msg")).toHaveAttribute(
    "title",
    /^would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false/,
  );
  await denied.first().getByRole("button").click();
  const drawer = page.getByRole("dialog", { name: "Decision detail" });
  await expect(drawer).toContainText("in-tree PodSecurity plugin");
  await expect(drawer).toContainText("PluginPodSecurity");
  await expect(drawer.getByRole("link", { name: "all its decisions" })).toHaveAttribute(
    "href",
    "/decisions?policy=PodSecurity",
  );
});

test("a webhook name in a mutating and a validating configuration: each page lists only its own webhook's decisions", async ({
  page,
  cleanup,
}) => {
  // cert-manager names its mutating and its validating webhook alike. Here a validating
  // configuration holds a webhook named as the scenario's patching (mutating) one, called for
  // no request: its page must not list the mutating webhook's calls.
  const stack = readStack();
  const twin = `${scenario.namespace}-twin`;
  const name = scenario.hookOf.patch;
  const created = await httpsRequest(
    `${stack.server}/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations`,
    {
      method: "POST",
      token: stack.tokens.admin,
      ca: readFileSync(stack.caFile),
      body: {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: twin },
        webhooks: [
          {
            name,
            admissionReviewVersions: ["v1"],
            sideEffects: "None",
            clientConfig: { url: scenario.server.url(name), caBundle: scenario.server.caBundle },
            rules: [
              {
                operations: ["DELETE"],
                apiGroups: ["example.invalid"],
                apiVersions: ["v1"],
                resources: ["nothings"],
              },
            ],
          },
        ],
      },
    },
  );
  expect(created.status).toBe(201);
  cleanup.defer(async () => {
    await httpsRequest(
      `${stack.server}/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${twin}`,
      { method: "DELETE", token: stack.tokens.admin, ca: readFileSync(stack.caFile) },
    );
  });
  await scenario.produce("patch");
  await page.goto(`/webhooks/mutatingwebhookconfigurations/${scenario.namespace}-mutating`);
  const mine = page.getByRole("region", { name: `Recent decisions of ${name}` });
  await expect(mine.locator(".outcome").first()).toHaveText("mutated");
  await page.goto(`/webhooks/validatingwebhookconfigurations/${twin}`);
  const twins = page.getByRole("region", { name: `Recent decisions of ${name}` });
  await expect(twins).toContainText("No stored decisions for this webhook.");
  await expect(twins.locator(".outcome")).toHaveCount(0);
});

test("the feed's time and count columns hold their text on one line", async ({ page }) => {
  await scenario.produce("deny");
  await page.goto(`/decisions?hook=${encodeURIComponent(scenario.hookOf.deny)}`);
  await expect(row(page, "deny").first()).toBeVisible();
  // One line box per text: a wrapped "02:05:4 / 0" or "Coun / t" has two. Polled: the live feed
  // may be re-rendering the row as it is measured (no line box at all), never wrapped for long.
  const lines = (selector: string) =>
    page
      .locator(selector)
      .first()
      .evaluate((el) => {
        const range = document.createRange();
        range.selectNodeContents(el);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      });
  await expect.poll(() => lines("table.decisions tbody td:nth-child(1)")).toBe(1);
  await expect.poll(() => lines("table.decisions thead th:nth-child(1)")).toBe(1);
  await expect.poll(() => lines("table.decisions thead th:nth-child(8)")).toBe(1);
});

test("a decision's request opens on the predict page as the audit event records it", async ({
  page,
}) => {
  await scenario.produce("deny");
  await page.goto(`/decisions?hook=${encodeURIComponent(scenario.hookOf.deny)}`);
  await row(page, "deny").first().getByRole("button").click();
  const drawer = page.getByRole("dialog", { name: "Decision detail" });
  await expect(drawer.getByRole("link", { name: "predict this request" })).toBeVisible();
  // The suggested audit policy logs a ConfigMap at Metadata level: said beside the link.
  await expect(drawer).toContainText("the audit event holds no object (Metadata level)");
  const user = (await drawer.locator("dt:text-is('User') + dd").innerText()).split(" (")[0] ?? "";
  await drawer.getByRole("link", { name: "predict this request" }).click();
  await expect(page.getByTestId("request-line")).toContainText(
    new RegExp(`^CREATE core/v1/configmaps in ${scenario.namespace} named `),
  );
  await expect(page.getByTestId("request-user")).toContainText(user);
  // Without the object's labels, the hooks that select objects by label are not predicted called.
  await expect(
    page.locator(`[data-testid=skip][data-hook="${scenario.hookOf.deny}"]`),
  ).toHaveAttribute("data-code", "object-selector");
});

test("the overview lists the hooks that did not let requests through lately, worst first, each linked to those decisions", async ({
  page,
  stack,
}) => {
  await scenario.produce("slow-fail");
  await scenario.produce("deny");
  // The server counts this scenario's timeout and denial (other tests' hooks share the window).
  const tally = async () => {
    const res = await page.request.get("/api/decisions/tally", {
      headers: policyHeaders(stack.contexts.admin),
    });
    expect(res.status()).toBe(200);
    return (await res.json()) as DecisionTallyResponse;
  };
  const countOf = (t: DecisionTallyResponse, hook: string, outcome: string) =>
    t.tallies.find((x) => x.hook === hook && x.outcome === outcome)?.count ?? 0;
  await expect
    .poll(
      async () => {
        const t = await tally();
        return [
          countOf(t, scenario.hookOf["slow-fail"], "timeout") > 0,
          countOf(t, scenario.hookOf.deny, "denied") > 0,
        ];
      },
      { timeout: 20_000 },
    )
    .toEqual([true, true]);

  // The rows are the ones the page's own tally gives, worst first (decisions keep arriving).
  const answered = page.waitForResponse((r) => r.url().includes("/api/decisions/tally"));
  await page.goto("/");
  const shown = (await (await answered).json()) as DecisionTallyResponse;
  const panel = page.getByRole("region", { name: "Recent admission decisions" });
  await expect(panel.getByTestId("tally-line")).toContainText("calls failed");
  const table = panel.getByRole("table", {
    name: "Webhooks and policies that did not let requests through",
  });
  const expected = summarizeTallies(shown.tallies).troubled.slice(0, 10);
  expect(expected.length).toBeGreaterThan(0);
  await expect(table.locator("tbody tr")).toHaveCount(expected.length);
  expect(
    await table
      .locator("tbody tr")
      .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-decider"))),
  ).toEqual(expected.map((d) => d.name));
  // The accessibility crawl may find the overview before any decision: check it with its table.
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    expect(await serious(page), scheme).toEqual([]);
  }
  const first = table.locator("tbody tr").first();
  // A count leads to exactly those decisions in the feed, since the window began.
  const outcome = await first.locator(".outcome").first().getAttribute("data-outcome");
  const hook = expected[0]?.name ?? "";
  await first.locator("a.tally-outcome").first().click();
  await expect(page).toHaveURL(
    new RegExp(
      `/decisions\\?${expected[0]?.field}=${encodeURIComponent(hook).replace(/\./g, "\\.")}&from=\\d+&outcome=${outcome}$`,
    ),
  );
  const feed = page.locator("table.decisions tbody tr");
  await expect(feed.first()).toBeVisible();
  await expect(
    page.locator(`table.decisions tbody tr:not([data-outcome='${outcome}'])`),
  ).toHaveCount(0);
  await expect(page.locator(`table.decisions tbody tr:not([data-hook='${hook}'])`)).toHaveCount(0);
});

test("the viewer may not read decisions (403 from RBAC); the editor, granted the URL, may", async ({
  page,
  stack,
  baseURL,
}) => {
  const viewer = await page.request.get("/api/decisions", {
    headers: policyHeaders(stack.contexts.viewer),
  });
  expect(viewer.status()).toBe(403);
  expect((await viewer.json()) as { message: string }).toMatchObject({
    message: expect.stringContaining("/portcullis/decisions"),
  });
  const stream = await page.request.get("/api/decisions/stream", {
    headers: policyHeaders(stack.contexts.viewer),
  });
  expect(stream.status()).toBe(403);
  const tally = await page.request.get("/api/decisions/tally", {
    headers: policyHeaders(stack.contexts.viewer),
  });
  expect(tally.status()).toBe(403);
  const editor = await page.request.get(`/api/decisions?namespace=${scenario.namespace}`, {
    headers: policyHeaders(stack.contexts.editor),
  });
  expect(editor.status()).toBe(200);

  await page
    .context()
    .addCookies([{ name: "portcullis-context", value: stack.contexts.viewer, url: baseURL ?? "" }]);
  await page.goto("/decisions");
  await expect(page.locator(".alert")).toContainText("Forbidden by the apiserver");
  await expect(page.locator("table.decisions")).toHaveCount(0);
  // The overview says so in place of the tally, and shows the rest.
  await page.goto("/");
  await expect(page.getByRole("region", { name: "Recent admission decisions" })).toContainText(
    "Your identity may not read admission decisions.",
  );
  await expect(page.getByTestId("server-version")).toBeVisible();
});
