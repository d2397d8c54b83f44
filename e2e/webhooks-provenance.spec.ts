import { readFileSync } from "node:fs";
import { test, expect } from "../test/e2e/fixtures";
import { httpsRequest } from "../cluster/https-json";
import type { StackInfo } from "../cluster/harness/stack";
import {
  deleteConfig,
  editorText,
  hook,
  setEditorText,
  uniqueName,
} from "../test/e2e/webhooks-helpers";

const R = "validatingwebhookconfigurations" as const;
const COLLECTION = `/apis/admissionregistration.k8s.io/v1/${R}`;
const AKS_TERMS = [
  { key: "control-plane", operator: "NotIn", values: ["true"] },
  { key: "kubernetes.azure.com/managedby", operator: "NotIn", values: ["aks"] },
];

/** A strategic-merge PATCH of one hook as `manager` (an Update by another field manager). */
async function patchHook(
  stack: StackInfo,
  name: string,
  manager: string,
  hookName: string,
  fields: Record<string, unknown>,
): Promise<void> {
  const res = await httpsRequest(`${stack.server}${COLLECTION}/${name}?fieldManager=${manager}`, {
    method: "PATCH",
    ca: readFileSync(stack.caFile),
    token: stack.tokens.admin,
    contentType: "application/strategic-merge-patch+json",
    body: { webhooks: [{ name: hookName, ...fields }] },
  });
  expect(res.status).toBe(200);
}

test.describe("Provenance of webhook configurations", () => {
  test("the detail page names the manager of each term, flags the injected ones and a reconcile fight", async ({
    page,
    kube,
    stack,
    cleanup,
  }) => {
    const name = uniqueName("e2e-provenance");
    const hookName = `a.${name}.example.com`;
    cleanup.defer(() => deleteConfig(kube, R, name));
    const created = await kube.request("POST", `${COLLECTION}?fieldManager=e2e-owner`, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name },
      webhooks: [
        hook(hookName, {
          namespaceSelector: { matchExpressions: [{ key: "team", operator: "Exists" }] },
        }),
      ],
    });
    expect(created.status).toBe(201);
    await patchHook(stack, name, "admissionsenforcer", hookName, {
      namespaceSelector: {
        matchExpressions: [{ key: "team", operator: "Exists" }, ...AKS_TERMS],
      },
    });

    // The dashboard watches for fights from its start (local mode); the page's first read of
    // them is waited for all the same, so the flips below are seen as changes on the open page.
    const fightsRead = page.waitForResponse(
      (r) => r.url().includes("/api/webhooks/fights") && r.ok(),
    );
    await page.goto(`/webhooks/${R}/${name}`);
    await fightsRead;
    const provenance = page.getByTestId("hook-provenance");
    await expect(provenance).toContainText("Created by e2e-owner");
    // One row per term (the platform's description names its terms too: match the term's cell).
    const row = (term: string) =>
      provenance
        .getByTestId("provenance-term")
        .filter({ has: page.getByRole("cell", { name: term, exact: true }) });
    const injected = row("control-plane NotIn [true]");
    await expect(injected).toHaveAttribute("data-injected", "true");
    await expect(injected).toContainText(
      "Injected by admissionsenforcer — AKS admissions enforcer",
    );
    await expect(injected).toContainText('admissions.enforcer/disabled: "true"');
    await expect(injected).toContainText("by platform signature");
    await expect(row("failurePolicy")).toHaveAttribute("data-injected", "false");

    // Two managers flip timeoutSeconds back and forth while the page is open.
    await patchHook(stack, name, "tuner", hookName, { timeoutSeconds: 5 });
    await patchHook(stack, name, "e2e-owner", hookName, { timeoutSeconds: 10 });
    await patchHook(stack, name, "tuner", hookName, { timeoutSeconds: 5 });
    await expect(page.getByTestId("hook-fight")).toContainText(
      `Reconcile fight: tuner and e2e-owner keep changing .webhooks[name="${hookName}"].timeoutSeconds`,
      { timeout: 10_000 },
    );
  });

  test("the editor warns before an edit drops a term another manager added", async ({
    page,
    kube,
    stack,
    cleanup,
  }) => {
    const name = uniqueName("e2e-provenance-edit");
    const hookName = `a.${name}.example.com`;
    cleanup.defer(() => deleteConfig(kube, R, name));
    const created = await kube.request("POST", `${COLLECTION}?fieldManager=e2e-owner`, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name },
      webhooks: [hook(hookName)],
    });
    expect(created.status).toBe(201);
    await patchHook(stack, name, "admissionsenforcer", hookName, {
      namespaceSelector: { matchExpressions: AKS_TERMS },
    });

    await page.goto(`/webhooks/${R}/${name}/edit`);
    const text = await editorText(page, R);
    expect(text).toContain("key: control-plane\n");
    await expect(page.getByTestId("provenance-warning")).toHaveCount(0);
    // An unrelated change: no warning.
    await setEditorText(page, R, text.replace("timeoutSeconds: 10", "timeoutSeconds: 7"));
    await expect(page.getByTestId("error-count")).toHaveText("0 errors");
    await expect(page.getByTestId("provenance-warning")).toHaveCount(0);
    // Dropping the enforcer's term: warned, with the platform and its opt-out.
    await setEditorText(page, R, text.replace("key: control-plane\n", "key: control-plane-x\n"));
    const warning = page.getByTestId("provenance-warning");
    await expect(warning).toContainText(
      "control-plane NotIn [true]: this term is added by admissionsenforcer (AKS admissions enforcer) and will come back.",
    );
    await expect(warning).toContainText("admissions.enforcer/disabled");
    await page.getByRole("tab", { name: "Diff vs live" }).click();
    await expect(warning).toBeVisible();
  });
});
