/**
 * Cases from traffic and replay before apply, against the real control plane: a harness
 * mutating webhook is called by the apiserver for ConfigMap creations in a namespace; its
 * decision reaches the feed through the audit sink, is saved as a test from the decision's
 * drawer, and an edit that narrows the webhook's namespaceSelector is replayed in the editor:
 * the saved case and the feed's requests are reported as no longer calling the webhook, with the
 * selector's reason. And a ValidatingAdmissionPolicy's binding switched from Warn to Deny in the
 * editor: a request kept as a case from the Predict page is reported newly denied, with the
 * policy's CEL message, evaluated offline.
 */
import { parse, stringify } from "yaml";
import { test, expect } from "../test/e2e/fixtures";
import { startWebhookServer, type WebhookServer } from "../cluster/harness/webhook-server";
import { editorText, setEditorText, uniqueName } from "../test/e2e/webhooks-helpers";

const R = "mutatingwebhookconfigurations";

let server: WebhookServer | undefined;

test.afterAll(async () => {
  await server?.close();
});

test("a decision saved as a test is reported by the replay of an edit that narrows its selector", async ({
  page,
  stack,
  objects,
  kube,
}) => {
  test.setTimeout(120_000);
  server = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
  const ns = await objects.namespace("replay");
  const cfg = uniqueName("replay");
  const hook = `cm.${cfg}.e2e.test`;
  server.program(hook, { type: "allow" });
  await objects.create(`/apis/admissionregistration.k8s.io/v1/${R}`, {
    metadata: { name: cfg },
    webhooks: [
      {
        name: hook,
        admissionReviewVersions: ["v1"],
        sideEffects: "None",
        clientConfig: { url: server.url(hook), caBundle: server.caBundle },
        rules: [
          {
            operations: ["CREATE"],
            apiGroups: [""],
            apiVersions: ["v1"],
            resources: ["configmaps"],
          },
        ],
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
        timeoutSeconds: 5,
      },
    ],
  } as { metadata: { name: string } });

  // ConfigMaps until the apiserver has called the webhook (a new configuration takes a moment).
  await expect
    .poll(
      async () => {
        const res = await kube.request("POST", `/api/v1/namespaces/${ns}/configmaps`, {
          metadata: { name: uniqueName("cm") },
        });
        expect(res.status).toBe(201);
        return server?.calls(hook).length ?? 0;
      },
      { timeout: 30_000 },
    )
    .toBeGreaterThan(0);

  // The decision arrives in the feed through the audit sink; save it as a test.
  await page.goto(`/decisions?namespace=${ns}`);
  const row = page.locator(`table.decisions tr[data-hook="${hook}"]`).first();
  await expect(row).toBeVisible({ timeout: 15_000 });
  await row.getByRole("button").click();
  const drawer = page.getByRole("dialog", { name: "Decision detail" });
  await drawer.getByRole("button", { name: "Save as test" }).click();
  const saved = drawer.getByRole("status").filter({ hasText: "Kept as case" });
  await expect(saved).toContainText(cfg);

  // The edit: the webhook only for namespaces labelled env=prod (this one is not).
  await page.goto(`/webhooks/${R}/${cfg}/edit`);
  const live = parse(await editorText(page, R)) as {
    webhooks: Array<{ namespaceSelector: { matchLabels: Record<string, string> } }>;
  };
  const first = live.webhooks[0];
  if (!first) throw new Error("the configuration has no webhook");
  first.namespaceSelector.matchLabels.env = "prod";
  await setEditorText(page, R, stringify(live));

  const panel = page.getByRole("region", { name: "Replay before apply" });
  await expect(panel.getByTestId("kept-cases")).toContainText("1 kept case");
  await panel.getByRole("button", { name: "Replay" }).click();
  const result = panel.getByTestId("replay-result");
  await expect(result.getByRole("status")).toContainText("Replayed 1 kept case and");
  await expect(result.getByRole("status")).toContainText("this edit changes the outcome of");
  await expect(
    result.getByRole("list", { name: "Changes by operation, resource and namespace" }),
  ).toContainText(
    new RegExp(
      `This edit stops calling ${cfg} / ${hook.replace(/\./g, "\\.")} for \\d+ configmap creations? in ${ns}\\.`,
    ),
  );
  // Each changed request opens to the predictor's reason; the kept case is among them.
  const kept = panel.getByTestId("changed-request").filter({ hasText: "kept case" });
  await expect(kept).toHaveCount(1);
  await kept.locator("summary").click();
  await expect(kept).toContainText("newly skipped");
  await expect(kept).toContainText(`does not match namespace ${ns}`);
  // The feed's requests were replayed with the namespace's current labels, and it says so.
  await expect(result.getByRole("list", { name: "Replay notes" })).toContainText("current labels");

  // The live version changes nothing.
  const unchanged = parse(await editorText(page, R)) as typeof live;
  delete unchanged.webhooks[0]?.namespaceSelector.matchLabels.env;
  await setEditorText(page, R, stringify(unchanged));
  await expect(
    panel.getByRole("status").filter({ hasText: "changed since this replay" }),
  ).toBeVisible();
  await panel.getByRole("button", { name: "Replay" }).click();
  await expect(result.getByRole("status")).toContainText("no outcome changes");
});

test("a binding switched from Warn to Deny: the kept request is shown newly denied, with the policy's message", async ({
  page,
  objects,
}) => {
  test.setTimeout(120_000);
  const ns = await objects.namespace("vap-replay");
  const policy = uniqueName("replay-owner");
  const binding = `${policy}-binding`;
  const B = "validatingadmissionpolicybindings";
  await objects.create("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", {
    metadata: { name: policy },
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
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
      },
      validations: [
        {
          expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels",
          messageExpression: "'configmap ' + object.metadata.name + ' has no owner label'",
        },
      ],
    },
  } as { metadata: { name: string } });
  await objects.create(`/apis/admissionregistration.k8s.io/v1/${B}`, {
    metadata: { name: binding },
    spec: { policyName: policy, validationActions: ["Warn"] },
  } as { metadata: { name: string } });

  // A configmap without an owner, predicted and kept as a case for the policy.
  const object = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: no-owner\n  namespace: ${ns}\ndata:\n  k: v\n`;
  await page.goto(`/predict?${new URLSearchParams({ object }).toString()}`);
  await expect(page.getByTestId("verdict")).toBeVisible();
  const save = page.getByRole("region", { name: "Save as test" });
  await save
    .getByLabel("Keep for")
    .selectOption({ label: `${policy} (validatingadmissionpolicies)` });
  await save.getByRole("button", { name: "Keep" }).click();
  await expect(save.getByRole("status")).toContainText(`Kept as case`);

  // The edit: the binding denies what it only warned about.
  await page.goto(`/policies/${B}/${binding}/edit`);
  const live = parse(await editorText(page, B)) as { spec: { validationActions: string[] } };
  live.spec.validationActions = ["Deny"];
  await setEditorText(page, B, stringify(live));

  const panel = page.getByRole("region", { name: "Replay before apply" });
  await expect(panel.getByTestId("kept-cases")).toContainText("1 kept case");
  await panel.getByRole("button", { name: "Replay" }).click();
  const result = panel.getByTestId("replay-result");
  await expect(result.getByRole("status")).toContainText("this edit changes the outcome of 1 of");
  await expect(
    result.getByRole("list", { name: "Changes by operation, resource and namespace" }),
  ).toContainText(
    `This edit makes admission refuse 1 configmap creation in ${ns} (at ${policy} / ${binding}).`,
  );
  // The newly denied request in sight, with the apiserver's status and the policy's message.
  const denied = result.getByRole("region", { name: "Newly denied requests" });
  const request = denied.getByTestId("newly-denied-request");
  await expect(request).toHaveCount(1);
  await expect(request).toContainText(`create configmaps ${ns}/no-owner`);
  await expect(request).toContainText("kept case");
  await expect(request).toContainText(
    `422: ValidatingAdmissionPolicy '${policy}' with binding '${binding}' denied request: configmap no-owner has no owner label`,
  );
  // Its warning goes with the Warn action.
  const kept = panel.getByTestId("changed-request").filter({ hasText: "kept case" });
  await kept.locator("summary").click();
  await expect(kept).toContainText("no longer warned");
});
