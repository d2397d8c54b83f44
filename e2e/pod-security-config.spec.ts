import { test, expect } from "../test/e2e/fixtures";
import { uniqueName } from "../test/e2e/webhooks-helpers";
import { POD_SECURITY_EXEMPT } from "../cluster/admission-config/pod-security";

/**
 * The apiserver's PodSecurity configuration (its AdmissionConfiguration, which the stack hands the
 * dashboard as PORTCULLIS_ADMISSION_CONFIG) on the namespace pages: the defaults for unlabelled
 * namespaces, where each mode's standard comes from, and the configured exemptions.
 */
test.describe("PodSecurity defaults and exemptions", () => {
  test("the namespaces page states the configured defaults and exemptions", async ({ page }) => {
    await page.goto("/namespaces");
    const defaults = page.getByTestId("pod-security-defaults");
    await expect(defaults).toContainText(
      "Pod Security for namespaces without its labels: enforce privileged:latest, warn privileged:latest, audit privileged:latest",
    );
    await expect(defaults).toContainText("admission-configuration.yaml");
    await expect(defaults).toContainText(
      `exempt: namespace ${POD_SECURITY_EXEMPT.namespace}, user ${POD_SECURITY_EXEMPT.username}, RuntimeClass ${POD_SECURITY_EXEMPT.runtimeClass}`,
    );
  });

  test("a namespace's page: labels or the configured default, mode by mode", async ({
    page,
    kube,
    cleanup,
  }) => {
    const ns = `${uniqueName("psd")}-app`;
    cleanup.defer(async () => {
      await kube.request("DELETE", `/api/v1/namespaces/${ns}`);
    });
    const res = await kube.request("POST", "/api/v1/namespaces", {
      metadata: { name: ns, labels: { "pod-security.kubernetes.io/audit": "baseline" } },
    });
    expect(res.status).toBe(201);
    await page.goto(`/namespaces/${ns}`);
    await expect(page.getByTestId("pod-security-audit")).toContainText(
      "baseline:latest the audit event is annotated (from the labels)",
    );
    await expect(page.getByTestId("pod-security-enforce")).toContainText(
      "privileged:latest nothing is checked (default, the apiserver's PodSecurity configuration)",
    );
    await expect(page.getByTestId("pod-security-source")).toContainText(
      "admission-configuration.yaml",
    );
    await expect(page.getByTestId("pod-security-exempt")).toHaveCount(0);
  });

  test("the exempt namespace's page says its labels are ignored", async ({
    page,
    kube,
    cleanup,
  }) => {
    const ns = POD_SECURITY_EXEMPT.namespace;
    const res = await kube.request("POST", "/api/v1/namespaces", {
      metadata: { name: ns, labels: { "pod-security.kubernetes.io/enforce": "restricted" } },
    });
    // (Left by an earlier run: it is this run's to remove either way.)
    expect([201, 409]).toContain(res.status);
    cleanup.defer(async () => {
      await kube.request("DELETE", `/api/v1/namespaces/${ns}`);
    });
    await page.goto(`/namespaces/${ns}`);
    await expect(page.getByTestId("pod-security-exempt")).toContainText(
      `Namespace ${ns} is exempt from Pod Security`,
    );
  });
});
