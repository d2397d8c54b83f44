/**
 * OIDC sign-in in Chromium: a shared-mode dashboard configured for Dex (a real issuer on
 * loopback, trusted by the stack's apiserver). The admin clicks "Sign in with OIDC", fills in
 * Dex's own login form, and lands on the dashboard as `oidc:<email>`, whose viewer RBAC the
 * apiserver applies (the write controls are off; a write sent anyway is refused with 403 and the
 * object is read back unchanged).
 */
import { test, expect } from "../test/e2e/fixtures";
import { serious } from "../test/e2e/axe";
import {
  OIDC_PASSWORD,
  OIDC_USERS,
  startOidcIssuer,
  type OidcIssuer,
} from "../cluster/harness/oidc-issuer";
import { startSharedDashboard, type SharedDashboard } from "../cluster/harness/shared-dashboard";
import { readStack } from "../cluster/harness/stack";
import { freePorts } from "../cluster/ports";
import {
  createConfig,
  deleteConfig,
  getConfig,
  hook,
  uniqueName,
} from "../test/e2e/webhooks-helpers";

const V = "validatingwebhookconfigurations" as const;
const ALICE = OIDC_USERS[0].email;

let issuer: OidcIssuer;
let d: SharedDashboard;
test.describe.configure({ mode: "serial" });
// Dex serves HTTPS with a certificate from the test's own CA, which Chromium does not know.
test.use({ ignoreHTTPSErrors: true });
test.beforeAll(async () => {
  // Builds Dex when its build is not cached (about 215 CPU-seconds cold).
  test.setTimeout(900_000);
  const stack = readStack();
  const [port] = (await freePorts(1)) as [number];
  issuer = await startOidcIssuer(stack, {
    redirectUrl: `http://127.0.0.1:${port}/sign-in/oidc`,
  });
  d = await startSharedDashboard(stack, { port, env: issuer.dashboardEnv });
});
test.afterAll(async () => {
  await d?.stop();
  await issuer?.stop();
});

test("signs in through Dex's login page and lands on the dashboard as the OIDC user", async ({
  page,
  kube,
  cleanup,
}) => {
  const name = uniqueName("e2e-oidc");
  cleanup.defer(async () => {
    await deleteConfig(kube, V, name);
  });
  const created = await createConfig(kube, V, name, [hook(`a.${name}.example.com`)]);
  await page.goto(`${d.url}/webhooks`);
  await expect(page).toHaveURL(`${d.url}/sign-in`);
  expect(await serious(page)).toEqual([]);
  await page.getByRole("button", { name: "Sign in with OIDC" }).click();

  // Dex's own login form, on the issuer's origin.
  await expect(page).toHaveURL(new RegExp(`^${issuer.issuer}/auth/local/login`));
  await page.locator("#login").fill(ALICE);
  await page.locator("#password").fill(OIDC_PASSWORD);
  await page.getByRole("button", { name: "Login" }).click();

  // Back through /sign-in/oidc to the dashboard, signed in.
  await expect(page).toHaveURL(`${d.url}/`);
  await expect(page.getByRole("banner")).toContainText(`Signed in as oidc:${ALICE} via OIDC`);
  const cookies = await page.context().cookies(d.url);
  expect(cookies.find((c) => c.name === "__Host-portcullis-session")).toMatchObject({
    httpOnly: true,
    secure: true,
    sameSite: "Strict",
  });
  // The flow cookie is spent, and nothing of the sign-in is readable from the page.
  expect(cookies.find((c) => c.name === "__Host-portcullis-oidc")).toBeUndefined();
  expect(await page.evaluate(() => document.cookie)).toBe("");

  await page.goto(`${d.url}/webhooks?q=${name}`);
  await expect(
    page.locator(`[data-row-id="ValidatingWebhookConfiguration/${name}/0"]`),
  ).toBeVisible();
  await expect(page.getByRole("button", { name: "New from template" })).toBeDisabled();

  const answer = await page.evaluate(
    async ({ url, object }) => {
      const res = await fetch(url, {
        method: "PUT",
        headers: { "content-type": "application/json", "x-portcullis-context": "shared" },
        body: JSON.stringify({ object }),
      });
      return { status: res.status, body: (await res.json()) as { message: string } };
    },
    {
      url: `/api/webhooks/${V}/${name}`,
      object: { ...created, webhooks: [{ ...created.webhooks?.[0], timeoutSeconds: 3 }] },
    },
  );
  expect(answer.status).toBe(403);
  expect(answer.body.message).toContain(`"oidc:${ALICE}"`);
  expect((await getConfig(kube, V, name))?.metadata.resourceVersion).toBe(
    created.metadata.resourceVersion,
  );
});

test("the callback page without a sign-in in progress says so and stays put", async ({ page }) => {
  await page.goto(`${d.url}/sign-in/oidc?state=made-up&code=made-up`);
  await expect(page.getByRole("link", { name: "Back to sign-in" })).toBeVisible();
  await expect(page.locator(".panel").getByRole("alert")).toContainText(
    "no OIDC sign-in is in progress",
  );
  await expect(page.locator(".panel").getByRole("alert")).toContainText(
    "start it again from the sign-in page",
  );
  // The code left the address bar, and the page was not sent elsewhere.
  await expect(page).toHaveURL(`${d.url}/sign-in/oidc`);
  expect(await serious(page)).toEqual([]);
});

test("a wrong password stays on Dex's page; no session is made", async ({ page }) => {
  await page.goto(`${d.url}/sign-in`);
  await page.getByRole("button", { name: "Sign in with OIDC" }).click();
  await expect(page).toHaveURL(new RegExp(`^${issuer.issuer}/auth/local/login`));
  await page.locator("#login").fill(ALICE);
  await page.locator("#password").fill("not-the-password");
  await page.getByRole("button", { name: "Login" }).click();
  await expect(page.locator("#login-error")).toContainText("Invalid");
  expect(
    (await page.context().cookies(d.url)).find((c) => c.name === "__Host-portcullis-session"),
  ).toBeUndefined();
});
