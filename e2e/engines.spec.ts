import { readFileSync } from "node:fs";
import { test, expect } from "../test/e2e/fixtures";
import { editorText, setEditorText } from "../test/e2e/webhooks-helpers";
import {
  engineApi,
  removeGatekeeper,
  seedGatekeeper,
  type GatekeeperWorld,
} from "../cluster/engines";
import { readStack } from "../cluster/harness/stack";

const VWC = "validatingwebhookconfigurations";
const VAP = "validatingadmissionpolicies";

// Gatekeeper's objects have fixed names: one world for the file, seeded once.
test.describe.configure({ mode: "serial" });

let world: GatekeeperWorld | undefined;
const api = () => {
  const s = readStack();
  return engineApi({ server: s.server, ca: readFileSync(s.caFile), token: s.tokens.admin });
};

test.beforeAll(async () => {
  world = await seedGatekeeper(api());
});

test.afterAll(async () => {
  if (world) await removeGatekeeper(api(), world);
});

test.describe("Engines", () => {
  test("the Engines page joins Gatekeeper's policies to the hooks and generated policy that carry them", async ({
    page,
  }) => {
    await page.goto("/engines");
    const gk = page.getByTestId("engine-gatekeeper");
    await expect(gk.getByRole("heading", { name: /Gatekeeper/ })).toBeVisible();

    const sources = gk.getByRole("table", { name: "Source policies" });
    const template = sources.getByRole("row", { name: /ConstraintTemplate k8srequiredlabels/ });
    await expect(template).toContainText("creates K8sRequiredLabels");
    await expect(template).toContainText("gatekeeper-k8srequiredlabels");
    const constraint = sources.getByRole("row", { name: /ns-must-have-owner/ });
    await expect(constraint).toContainText("deny · 2 violations");
    // Enforced twice: Gatekeeper's webhook and the generated binding.
    await expect(constraint).toContainText("validation.gatekeeper.sh");
    await expect(constraint).toContainText("gatekeeper-k8srequiredlabels-ns-must-have-owner");

    const hooks = gk.getByRole("table", { name: "Hooks" });
    await expect(
      hooks.getByRole("row", { name: /check-ignore-label\.gatekeeper\.sh/ }),
    ).toBeVisible();

    const policies = gk.getByRole("table", { name: "Generated admission policies" });
    const vap = policies.getByRole("row", {
      name: /ValidatingAdmissionPolicy gatekeeper-k8srequiredlabels/,
    });
    await expect(vap.getByTestId("certainty")).toHaveText("proof");

    // Source policy → generated policy → its page.
    await vap.getByRole("link", { name: "gatekeeper-k8srequiredlabels" }).first().click();
    await expect(page).toHaveURL(new RegExp(`/policies/${VAP}/gatekeeper-k8srequiredlabels$`));
  });

  test("a hand edit of Gatekeeper's webhook configuration is warned before it is applied", async ({
    page,
    kube,
  }) => {
    const name = "gatekeeper-validating-webhook-configuration";
    const before = JSON.parse(
      (await kube.request("GET", `/apis/admissionregistration.k8s.io/v1/${VWC}/${name}`)).body,
    ) as {
      metadata: { resourceVersion: string };
    };
    await page.goto(`/webhooks/${VWC}/${name}/edit`);
    const owned = page.getByTestId("engine-owned");
    await expect(owned).toContainText("Owned by Gatekeeper");
    await expect(owned).toContainText("writes its own version back");

    const text = await editorText(page, VWC);
    await setEditorText(page, VWC, text.replace("timeoutSeconds: 3", "timeoutSeconds: 5"));
    await page.getByRole("button", { name: "Apply" }).click();
    const ask = page.getByRole("alertdialog", { name: "Owned by Gatekeeper" });
    await expect(ask).toContainText("gatekeeper-validating-webhook-configuration");
    await expect(ask).toContainText("admission.gatekeeper.sh/ignore");
    // Nothing written yet.
    const still = JSON.parse(
      (await kube.request("GET", `/apis/admissionregistration.k8s.io/v1/${VWC}/${name}`)).body,
    ) as {
      metadata: { resourceVersion: string };
    };
    expect(still.metadata.resourceVersion).toBe(before.metadata.resourceVersion);

    await ask.getByRole("button", { name: "Apply anyway" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Applied" })).toBeVisible();
  });

  test("the generated policy's editor names the ConstraintTemplate to change instead, with proof", async ({
    page,
  }) => {
    await page.goto(`/policies/${VAP}/gatekeeper-k8srequiredlabels`);
    await expect(page.getByTestId("engine-owner")).toContainText(
      "Owned by Gatekeeper · ConstraintTemplate k8srequiredlabels · proof: owner reference",
    );
    await page.goto(`/policies/${VAP}/gatekeeper-k8srequiredlabels/edit`);
    const owned = page.getByTestId("engine-owned");
    await expect(owned).toContainText(
      "Owned by Gatekeeper · ConstraintTemplate k8srequiredlabels · proof: owner reference",
    );
    await owned.getByRole("link", { name: "ConstraintTemplate k8srequiredlabels" }).click();
    await expect(page).toHaveURL(
      /\/engines#engine-gatekeeper-ConstraintTemplate--k8srequiredlabels$/,
    );
  });

  test("L20 is shown on the Engines page and on the hook's page, linked to the Constraint and the hook", async ({
    page,
  }) => {
    const constraintHref = "/engines#engine-gatekeeper-K8sRequiredLabels--ns-must-have-owner";
    const configHref = `/webhooks/${VWC}/gatekeeper-validating-webhook-configuration`;

    await page.goto("/engines");
    const findings = page.getByTestId("engine-gatekeeper").getByTestId("engine-findings");
    const l20 = findings
      .getByRole("listitem")
      .filter({ hasText: "Rule enforced by both the generated admission policy" });
    await expect(l20).toContainText("L20");
    const owner = l20.getByTestId("finding-engine");
    await expect(owner).toContainText("Gatekeeper");
    await expect(
      owner.getByRole("link", { name: "K8sRequiredLabels ns-must-have-owner" }),
    ).toHaveAttribute("href", constraintHref);
    await expect(owner.getByRole("link", { name: "validation.gatekeeper.sh" })).toHaveAttribute(
      "href",
      configHref,
    );

    // The hook's own page lints with the engine's policies from the live state.
    await page.goto(configHref);
    await expect(page.getByTestId("lint-mode")).toContainText("every check");
    const onHook = page
      .getByTestId("finding-engine")
      .filter({ hasText: "K8sRequiredLabels ns-must-have-owner" })
      .first();
    await expect(onHook).toBeVisible();
    await onHook.getByRole("link", { name: "K8sRequiredLabels ns-must-have-owner" }).click();
    await expect(page).toHaveURL(new RegExp(`${constraintHref}$`));
  });

  test("Predict names the engine behind each called hook, linked to the Engines page", async ({
    page,
  }) => {
    const object = [
      "apiVersion: v1",
      "kind: Namespace",
      "metadata:",
      "  name: engines-predict",
      "  labels:",
      '    portcullis.dev/engine-demo: "true"',
    ].join("\n");
    await page.goto(`/predict?${new URLSearchParams({ object }).toString()}`);
    await expect(page.getByTestId("verdict")).toBeVisible();
    const hook = page.locator('[data-testid=call][data-hook="validation.gatekeeper.sh"]');
    const owner = hook.getByTestId("call-owner");
    await expect(owner).toContainText("Gatekeeper");
    await expect(
      page.locator('[data-testid=call][data-hook="check-ignore-label.gatekeeper.sh"]'),
    ).toContainText("Gatekeeper");
    // The generated binding's evaluation depends on the Constraint (its params): not a call here.
    await owner.getByRole("link", { name: "Gatekeeper" }).click();
    await expect(page).toHaveURL(/\/engines$/);
    await expect(page.getByTestId("engine-gatekeeper")).toBeVisible();
  });

  test("with Gatekeeper's objects gone, its findings are gone from the Engines page", async ({
    page,
  }) => {
    if (world) await removeGatekeeper(api(), world);
    world = undefined;
    await page.goto("/engines");
    // Gatekeeper's kinds stay served (its CRDs are installed): its section remains, without L20.
    const gk = page.getByTestId("engine-gatekeeper");
    await expect(gk.getByRole("heading", { name: /Gatekeeper/ })).toBeVisible();
    await expect(gk).not.toContainText("ns-must-have-owner");
    await expect(gk).not.toContainText("Rule enforced by both the generated admission policy");
  });
});
