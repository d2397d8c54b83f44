import type { Page } from "@playwright/test";
import { test, expect, type Kube } from "../test/e2e/fixtures";
import { policyHeaders } from "../test/api-headers";
import {
  GROUP_PATH,
  editorMarkers,
  editorText,
  lineOf,
  setEditorText,
  uniqueName,
} from "../test/e2e/webhooks-helpers";

const VAP = "validatingadmissionpolicies";
const VAPB = "validatingadmissionpolicybindings";
const MAP = "mutatingadmissionpolicies";
const MAPB = "mutatingadmissionpolicybindings";
const V1 = "admissionregistration.k8s.io/v1";

/** Creates through the apiserver as admin; returns the stored object. */
async function create(kube: Kube, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await kube.request("POST", path, body);
  if (res.status !== 201) throw new Error(`create ${path}: ${res.status} ${res.body}`);
  return JSON.parse(res.body) as Record<string, unknown>;
}

async function exists(kube: Kube, resource: string, name: string): Promise<boolean> {
  const res = await kube.request("GET", `${GROUP_PATH}/${resource}/${name}`);
  if (res.status !== 200 && res.status !== 404) throw new Error(`get ${name}: ${res.status}`);
  return res.status === 200;
}

/** A namespace of its own, so a policy bound to it touches nothing else in the cluster. */
async function testNamespace(kube: Kube, name: string): Promise<void> {
  await create(kube, "/api/v1/namespaces", {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, labels: { "portcullis-e2e": name } },
  });
}

/** The rules of every policy these tests seed: ConfigMap creates only. */
const CONFIGMAP_CREATES = [
  { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
];

/** A policy or binding of the given collection, created through the apiserver as admin. */
function seed(kube: Kube, resource: string, kind: string, name: string, spec: unknown) {
  cleanup(kube, `${GROUP_PATH}/${resource}/${name}`);
  return create(kube, `${GROUP_PATH}/${resource}`, {
    apiVersion: V1,
    kind,
    metadata: { name },
    spec,
  });
}

const onlyIn = (ns: string) => ({
  namespaceSelector: { matchLabels: { "portcullis-e2e": ns } },
});

function configMap(ns: string, name: string, extra: Record<string, unknown> = {}) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: ns }, ...extra };
}

/** A dry-run create straight to the apiserver as admin. */
async function dryRunCreate(kube: Kube, ns: string, obj: unknown) {
  return kube.request("POST", `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, obj);
}

async function tryInPanel(page: Page, yaml: string): Promise<void> {
  const panel = page.getByRole("region", { name: "Try a request" });
  await panel.getByLabel("Object to create (YAML)").fill(yaml);
  await panel.getByRole("button", { name: "Dry run create" }).click();
}

const cleanups: Array<() => Promise<unknown>> = [];
test.afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

function cleanup(kube: Kube, path: string): void {
  cleanups.push(() => kube.request("DELETE", path));
}

test.describe("Admission policies", () => {
  test("create a policy and its binding from a template; a matching request is denied with the apiserver's message and the page names the binding", async ({
    page,
    kube,
  }) => {
    const name = uniqueName("e2e-vap");
    const ns = uniqueName("e2e-vap-ns");
    await testNamespace(kube, ns);
    cleanup(kube, `/api/v1/namespaces/${ns}`);
    cleanup(kube, `${GROUP_PATH}/${VAPB}/${name}-binding`);
    cleanup(kube, `${GROUP_PATH}/${VAP}/${name}`);

    await page.goto("/policies");
    await page.getByText("New from template", { exact: true }).click();
    await page.getByRole("link", { name: "Require labels" }).click();
    const tpl = await editorText(page, VAP);
    expect(tpl).toContain("kind: ValidatingAdmissionPolicy");
    await setEditorText(page, VAP, tpl.replace("name: require-labels", `name: ${name}`));
    await expect(page.getByTestId("error-count")).toHaveText("0 errors");
    await page.getByRole("button", { name: "Create" }).click();

    // The binding template opens next, already naming the new policy.
    await expect(
      page.getByRole("heading", { name: /New ValidatingAdmissionPolicyBinding/ }),
    ).toBeVisible();
    const btext = await editorText(page, VAPB);
    expect(btext).toContain(`policyName: ${name}`);
    expect(btext).toContain(`name: ${name}-binding`);
    // Bound to this test's namespace only.
    const narrowed = btext.replace(
      / {2}matchResources:[\s\S]*$/,
      `  matchResources:\n    namespaceSelector:\n      matchLabels:\n        portcullis-e2e: ${ns}\n`,
    );
    await setEditorText(page, VAPB, narrowed);
    await expect(page.getByTestId("error-count")).toHaveText("0 errors");
    await page.getByRole("button", { name: "Create" }).click();
    await expect(page).toHaveURL(new RegExp(`/policies/${VAPB}/${name}-binding$`));

    // Read back from the apiserver.
    const policy = JSON.parse((await kube.request("GET", `${GROUP_PATH}/${VAP}/${name}`)).body) as {
      spec: { validations: Array<{ message: string }> };
    };
    expect(policy.spec.validations[0]?.message).toBe("every object must carry an owner label");
    const binding = JSON.parse(
      (await kube.request("GET", `${GROUP_PATH}/${VAPB}/${name}-binding`)).body,
    ) as { spec: { policyName: string; validationActions: string[] } };
    expect(binding.spec).toMatchObject({ policyName: name, validationActions: ["Deny"] });

    // A matching request, straight to the apiserver as admin: denied with the policy's message.
    const cm = configMap(ns, "no-owner");
    await expect
      .poll(async () => (await dryRunCreate(kube, ns, cm)).status, { timeout: 15_000 })
      .toBe(422);
    const denied = JSON.parse((await dryRunCreate(kube, ns, cm)).body) as { message: string };
    expect(denied.message).toContain(
      `ValidatingAdmissionPolicy '${name}' with binding '${name}-binding' denied request`,
    );
    expect(denied.message).toContain("every object must carry an owner label");

    // The policy's page lists the binding, and its dry run names the binding that matched.
    await page.goto(`/policies/${VAP}/${name}`);
    await expect(page.getByTestId(`binding-${name}-binding`)).toBeVisible();
    await tryInPanel(
      page,
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: no-owner\n  namespace: ${ns}\n`,
    );
    await expect(page.getByTestId("try-denial")).toContainText(
      "every object must carry an owner label",
    );
    await expect(page.getByTestId("matched-binding")).toHaveText(`${name}-binding`);
    await page.screenshot({ path: "e2e/artifacts/policy-detail.png", fullPage: true });
    // With the label, the same request is admitted: nothing is named.
    await tryInPanel(
      page,
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owned\n  namespace: ${ns}\n  labels: { owner: me }\n`,
    );
    await expect(page.getByRole("status").filter({ hasText: "Admitted" })).toBeVisible();
    // Nothing was stored by either dry run.
    expect((await kube.request("GET", `/api/v1/namespaces/${ns}/configmaps/owned`)).status).toBe(
      404,
    );

    await page.goto("/policies");
    const row = page.locator(`[data-row-id="ValidatingAdmissionPolicy/${name}"]`);
    await expect(row).toContainText(`${name}-binding`);
    await expect(row).toContainText("Deny");
    await page.screenshot({ path: "e2e/artifacts/policies-list.png", fullPage: true });
  });

  test("a Warn action's warning is shown; a policy with no binding is marked inert", async ({
    page,
    kube,
  }) => {
    const name = uniqueName("e2e-warn");
    const ns = uniqueName("e2e-warn-ns");
    await testNamespace(kube, ns);
    cleanup(kube, `/api/v1/namespaces/${ns}`);
    await seed(kube, VAP, "ValidatingAdmissionPolicy", name, {
      matchConstraints: {
        resourceRules: CONFIGMAP_CREATES,
      },
      validations: [
        {
          expression: "!has(object.data) || !('debug' in object.data)",
          message: "debug keys are discouraged",
        },
      ],
    });
    await page.goto(`/policies/${VAP}/${name}`);
    await expect(page.getByTestId("inert")).toBeVisible();
    await page.goto("/policies");
    await expect(page.locator(`[data-row-id="ValidatingAdmissionPolicy/${name}"]`)).toContainText(
      "inert",
    );

    await seed(kube, VAPB, "ValidatingAdmissionPolicyBinding", name, {
      policyName: name,
      validationActions: ["Warn"],
      matchResources: onlyIn(ns),
    });
    // Live: the row picks up its binding without a reload.
    await expect(page.locator(`[data-row-id="ValidatingAdmissionPolicy/${name}"]`)).toContainText(
      "Warn",
    );
    await page.goto(`/policies/${VAP}/${name}`);
    await expect(page.getByTestId("inert")).toHaveCount(0);
    const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dbg\n  namespace: ${ns}\ndata:\n  debug: "1"\n`;
    await expect(async () => {
      await tryInPanel(page, yaml);
      await expect(page.getByTestId("try-warning")).toContainText("debug keys are discouraged", {
        timeout: 2_000,
      });
    }).toPass({ timeout: 20_000 });
    await expect(page.getByRole("status").filter({ hasText: "Admitted" })).toBeVisible();
    await expect(page.getByTestId("matched-binding")).toHaveText(name);
  });

  test("a binding whose params are missing is flagged", async ({ page, kube }) => {
    const name = uniqueName("e2e-params");
    await seed(kube, VAP, "ValidatingAdmissionPolicy", name, {
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
      matchConstraints: {
        resourceRules: CONFIGMAP_CREATES,
        objectSelector: { matchLabels: { "portcullis-e2e-never": "set" } },
      },
      validations: [{ expression: "params.data.allowed == 'true'" }],
    });
    await seed(kube, VAPB, "ValidatingAdmissionPolicyBinding", name, {
      policyName: name,
      validationActions: ["Deny"],
      paramRef: { name: `${name}-absent`, namespace: "default", parameterNotFoundAction: "Deny" },
    });
    await page.goto("/policies");
    await expect(page.getByTestId(`params-${name}`)).toHaveText("missing");
    await page.goto(`/policies/${VAPB}/${name}`);
    const status = page.getByTestId("params-status");
    await expect(status).toHaveAttribute("data-state", "missing");
    await expect(status.getByRole("alert")).toContainText(
      `ConfigMap default/${name}-absent: not found. parameterNotFoundAction Deny`,
    );
    await page.screenshot({ path: "e2e/artifacts/policy-binding.png", fullPage: true });

    // Once the parameter object exists the flag goes.
    cleanup(kube, `/api/v1/namespaces/default/configmaps/${name}-absent`);
    await create(
      kube,
      "/api/v1/namespaces/default/configmaps",
      configMap("default", `${name}-absent`, { data: { allowed: "true" } }),
    );
    await page.reload();
    await expect(page.getByTestId("params-status")).toHaveAttribute("data-state", "found");
  });

  test("invalid CEL in a mutation is shown inline, and the apiserver's rejection too; nothing is applied", async ({
    page,
    kube,
  }) => {
    const name = uniqueName("e2e-badcel");
    cleanup(kube, `${GROUP_PATH}/${MAP}/${name}`);
    await page.goto("/policies/new?template=default-label");
    const tpl = await editorText(page, MAP);
    const bad = tpl
      .replace("name: default-label", `name: ${name}`)
      .replace(/expression: 'Object\{.*$/m, "expression: 'Object{ metadata: '");
    expect(bad).toContain("expression: 'Object{ metadata: '");
    await setEditorText(page, MAP, bad);
    const line = lineOf(bad, "expression: 'Object{ metadata: '");
    await expect
      .poll(async () => (await editorMarkers(page, MAP)).filter((m) => m.owner === "admission"))
      .toEqual([
        expect.objectContaining({
          line,
          message: expect.stringContaining("spec.mutations[0].applyConfiguration.expression"),
        }),
      ]);
    expect(
      (await editorMarkers(page, MAP)).find((m) => m.owner === "admission")?.message,
    ).toContain("Syntax error");
    await expect(page.getByTestId("error-count")).toHaveText("1 error");
    await page.screenshot({ path: "e2e/artifacts/policy-editor.png", fullPage: true });

    // Sent anyway: the apiserver refuses it; its message lands on the same line.
    await page.getByRole("button", { name: "Create" }).click();
    await expect
      .poll(async () => (await editorMarkers(page, MAP)).filter((m) => m.owner === "apiserver"))
      .toEqual([
        expect.objectContaining({
          line,
          message: expect.stringContaining("compilation failed"),
        }),
      ]);
    await expect(page.getByRole("region", { name: "Dry run result" })).toContainText("Invalid");
    expect(await exists(kube, MAP, name)).toBe(false);
  });

  test("a MutatingAdmissionPolicy's effect shows in a dry run", async ({ page, kube }) => {
    const name = uniqueName("e2e-map");
    const ns = uniqueName("e2e-map-ns");
    await testNamespace(kube, ns);
    cleanup(kube, `/api/v1/namespaces/${ns}`);
    await seed(kube, MAP, "MutatingAdmissionPolicy", name, {
      reinvocationPolicy: "Never",
      matchConstraints: {
        resourceRules: CONFIGMAP_CREATES,
      },
      mutations: [
        {
          patchType: "ApplyConfiguration",
          applyConfiguration: {
            expression: 'Object{ metadata: Object.metadata{ labels: {"team": "unassigned"} } }',
          },
        },
      ],
    });
    await seed(kube, MAPB, "MutatingAdmissionPolicyBinding", name, {
      policyName: name,
      matchResources: onlyIn(ns),
    });
    // The apiserver itself applies it (read back from a direct dry run).
    await expect
      .poll(
        async () => {
          const r = await dryRunCreate(kube, ns, configMap(ns, "m"));
          return (JSON.parse(r.body) as { metadata?: { labels?: Record<string, string> } }).metadata
            ?.labels?.team;
        },
        { timeout: 15_000 },
      )
      .toBe("unassigned");

    await page.goto(`/policies/${MAP}/${name}`);
    await expect(page.getByRole("region", { name: "Mutations" })).toContainText(
      "Object.metadata{ labels",
    );
    await tryInPanel(
      page,
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\n  namespace: ${ns}\n`,
    );
    await page.screenshot({ path: "e2e/artifacts/policy-mutating.png", fullPage: true });
    await expect(page.getByTestId("try-change")).toContainText([
      /metadata\.labels\s*added\s*\{"team":"unassigned"\}/,
    ]);
    expect((await kube.request("GET", `/api/v1/namespaces/${ns}/configmaps/m`)).status).toBe(404);
  });

  test("type-checking warnings shown in place; policies in the call order and on Overview", async ({
    page,
    kube,
  }) => {
    const name = uniqueName("e2e-types");
    await seed(kube, VAP, "ValidatingAdmissionPolicy", name, {
      matchConstraints: {
        resourceRules: CONFIGMAP_CREATES,
        objectSelector: { matchLabels: { "portcullis-e2e-never": "set" } },
      },
      // ConfigMaps have no spec: the apiserver's type checker warns, the policy is still stored.
      validations: [{ expression: "object.spec.replicas < 5" }],
    });
    await seed(kube, VAPB, "ValidatingAdmissionPolicyBinding", name, {
      policyName: name,
      validationActions: ["Audit"],
    });
    await page.goto(`/policies/${VAP}/${name}`);
    // Written by the status controller a moment later; the page is live.
    await expect(
      page.getByRole("region", { name: "Validations" }).getByTestId("type-warning"),
    ).toContainText("undefined field 'spec'", { timeout: 30_000 });
    const stored = JSON.parse((await kube.request("GET", `${GROUP_PATH}/${VAP}/${name}`)).body) as {
      status: { typeChecking: { expressionWarnings: Array<{ fieldRef: string }> } };
    };
    expect(stored.status.typeChecking.expressionWarnings[0]?.fieldRef).toBe(
      "spec.validations[0].expression",
    );
    await page.goto("/policies");
    await expect(page.locator(`[data-row-id="ValidatingAdmissionPolicy/${name}"]`)).toContainText(
      "1 type warning",
    );

    await page.goto("/webhooks/order");
    await expect(
      page
        .getByRole("region", { name: /Validating admission policies/ })
        .getByTestId(`policy-${name}/${name}`),
    ).toContainText("Audit");
    await page.screenshot({ path: "e2e/artifacts/policy-order.png", fullPage: true });

    const list = JSON.parse((await kube.request("GET", `${GROUP_PATH}/${VAP}`)).body) as {
      items: unknown[];
    };
    await page.goto("/");
    await expect(page.getByTestId("count-validatingadmissionpolicies")).toHaveText(
      String(list.items.length),
    );
  });

  test("edit with a resourceVersion precondition, duplicate and delete a policy", async ({
    page,
    kube,
    stack,
  }) => {
    const name = uniqueName("e2e-dup");
    const stored = (await seed(kube, VAP, "ValidatingAdmissionPolicy", name, {
      matchConstraints: {
        resourceRules: CONFIGMAP_CREATES,
        objectSelector: { matchLabels: { "portcullis-e2e-never": "set" } },
      },
      validations: [{ expression: "true", message: "first" }],
    })) as { metadata: { resourceVersion: string } };
    cleanup(kube, `${GROUP_PATH}/${VAP}/${name}-copy`);

    // The editor completes from the cluster's own schema of the kind.
    const schema = await page.request.get(`/api/webhooks/schema/${VAP}`, {
      headers: policyHeaders(stack.contexts.admin),
    });
    expect(schema.status()).toBe(200);
    expect(JSON.stringify(await schema.json())).toContain("matchConstraints");

    await page.goto(`/policies/${VAP}/${name}/edit`);
    const text = await editorText(page, VAP);
    // The version the editor started from: the precondition of the update. (The status controller
    // may have written the status since the create, so it can be newer than the create's.)
    const base = /resourceVersion: "(\d+)"/.exec(text)?.[1] ?? "";
    expect(Number(base)).toBeGreaterThanOrEqual(Number(stored.metadata.resourceVersion));
    await setEditorText(page, VAP, text.replace("message: first", "message: second"));
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page.getByRole("status")).toContainText("Applied");
    const after = JSON.parse((await kube.request("GET", `${GROUP_PATH}/${VAP}/${name}`)).body) as {
      metadata: { resourceVersion: string };
      spec: { validations: Array<{ message: string }> };
    };
    expect(after.spec.validations[0]?.message).toBe("second");
    expect(after.metadata.resourceVersion).not.toBe(base);

    await page.goto(`/policies/${VAP}/${name}`);
    await page.getByRole("link", { name: "Duplicate" }).click();
    const copy = await editorText(page, VAP);
    expect(copy).toContain(`name: ${name}-copy`);
    expect(copy).not.toContain("resourceVersion");
    await page.getByRole("button", { name: "Create" }).click();
    await expect(page).toHaveURL(new RegExp(`/policies/${VAP}/${name}-copy$`));
    expect(await exists(kube, VAP, `${name}-copy`)).toBe(true);

    await page.getByRole("button", { name: "Delete…" }).click();
    await page.getByLabel("Type the name to confirm").fill(`${name}-copy`);
    await page.getByRole("button", { name: `Delete ${name}-copy` }).click();
    await expect(page).toHaveURL(/\/policies$/);
    await expect.poll(() => exists(kube, VAP, `${name}-copy`)).toBe(false);
    expect(await exists(kube, VAP, name)).toBe(true);
  });

  test("a viewer sees read-only pages", async ({ page, kube, stack, baseURL }) => {
    const name = uniqueName("e2e-ro");
    await seed(kube, VAP, "ValidatingAdmissionPolicy", name, {
      matchConstraints: {
        resourceRules: CONFIGMAP_CREATES,
      },
      validations: [{ expression: "true" }],
    });
    await page
      .context()
      .addCookies([
        { name: "portcullis-context", value: stack.contexts.viewer, url: baseURL ?? "" },
      ]);
    await page.goto("/policies");
    await expect(page.locator(`[data-row-id="ValidatingAdmissionPolicy/${name}"]`)).toBeVisible();
    await expect(page.getByRole("button", { name: "New from template" })).toBeDisabled();
    await page.goto(`/policies/${VAP}/${name}`);
    await expect(page.getByTestId("read-only")).toBeVisible();
    await expect(page.getByRole("button", { name: "Edit YAML" })).toBeDisabled();
    await expect(page.getByRole("button", { name: "Duplicate" })).toBeDisabled();
    await expect(page.getByRole("button", { name: "Delete…" })).toBeDisabled();
    await page.goto(`/policies/${VAP}/${name}/edit`);
    await expect(page.getByTestId("read-only")).toBeVisible();
    await expect(page.getByRole("button", { name: "Apply" })).toBeDisabled();
    expect(await exists(kube, VAP, name)).toBe(true);
  });
});
