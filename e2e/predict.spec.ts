/**
 * The predict page against the real control plane with recorder webhooks: for requests covering
 * each skip reason, a reinvocation, a namespace what-if and a denial, the hooks the page predicts
 * are the hooks the apiserver called (the recorders saw them, during "Try it for real"'s dry
 * run), and the page shows the apiserver's verdict.
 */
import type { Page } from "@playwright/test";
import { test, expect, type Kube } from "../test/e2e/fixtures";
import {
  startWebhookServer,
  type JsonPatchOp,
  type WebhookServer,
} from "../cluster/harness/webhook-server";
import { GROUP_PATH } from "../test/e2e/webhooks-helpers";
import { serious } from "../test/e2e/axe";

const id = `pe${Date.now().toString(36)}`;
const SUFFIX = `.${id}.portcullis.test`;
const PROD = `${id}-prod`;
const DEV = `${id}-dev`;
let hooks: WebhookServer;

const cmRule = (operations: string[] = ["CREATE"]) => [
  { operations, apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
];
// Every hook only sees this test's namespaces.
const ours = { matchExpressions: [{ key: id, operator: "Exists" }] };

function webhook(short: string, spec: Record<string, unknown>): Record<string, unknown> {
  return {
    name: `${short}${SUFFIX}`,
    clientConfig: { url: hooks.url(short), caBundle: hooks.caBundle },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    timeoutSeconds: 5,
    failurePolicy: "Fail",
    namespaceSelector: ours,
    rules: cmRule(),
    ...spec,
  };
}

const annotate = (short: string): JsonPatchOp[] => [
  { op: "add", path: `/metadata/annotations`, value: { [`${id}/${short}`]: "x" } },
];

async function ok(kube: Kube, method: string, path: string, body?: unknown): Promise<void> {
  const res = await kube.request(method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body}`);
}

test.beforeAll(async ({ stack, kube }) => {
  hooks = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
  // m1 and m2 both patch: m2 changes the object after m1, so m1 (IfNeeded) runs again in round 1.
  hooks.program("m1", { type: "patch", patch: annotate("m1") });
  hooks.program("m2", { type: "patch", patch: annotate("m2") });
  for (const s of ["vns", "vobj", "vcond", "vsecret"]) hooks.program(s, { type: "allow" });
  hooks.program("vdeny", { type: "deny", message: "no deny=yes objects here", code: 403 });
  await ok(kube, "POST", "/api/v1/namespaces", {
    metadata: { name: PROD, labels: { [id]: "1", env: "prod" } },
  });
  await ok(kube, "POST", "/api/v1/namespaces", {
    metadata: { name: DEV, labels: { [id]: "1", env: "dev" } },
  });
  await ok(kube, "POST", `${GROUP_PATH}/mutatingwebhookconfigurations`, {
    metadata: { name: `${id}-m` },
    webhooks: [
      webhook("m1", { reinvocationPolicy: "IfNeeded" }),
      webhook("m2", { reinvocationPolicy: "Never" }),
    ],
  });
  await ok(kube, "POST", `${GROUP_PATH}/validatingwebhookconfigurations`, {
    metadata: { name: `${id}-v` },
    webhooks: [
      webhook("vns", {
        namespaceSelector: {
          matchExpressions: [...ours.matchExpressions],
          matchLabels: { env: "prod" },
        },
      }),
      webhook("vobj", { objectSelector: { matchLabels: { app: "web" } } }),
      webhook("vcond", {
        matchConditions: [
          { name: "keep-only", expression: "object.metadata.name.startsWith('keep')" },
        ],
      }),
      webhook("vsecret", {
        rules: [
          { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["secrets"] },
        ],
      }),
      webhook("vdeny", { objectSelector: { matchLabels: { deny: "yes" } } }),
    ],
  });
  // The apiserver's informers pick the configurations up within moments: wait until they do.
  const deadline = Date.now() + 20_000;
  for (;;) {
    await kube.request("POST", `/api/v1/namespaces/${PROD}/configmaps?dryRun=All`, {
      metadata: { name: "keep-probe" },
    });
    if (hooks.calls("m1").length > 0 && hooks.calls("vcond").length > 0) break;
    if (Date.now() > deadline) throw new Error("the apiserver never called the recorder hooks");
    await new Promise((r) => setTimeout(r, 250));
  }
});

test.afterAll(async ({ kube }) => {
  await kube.request("DELETE", `${GROUP_PATH}/mutatingwebhookconfigurations/${id}-m`);
  await kube.request("DELETE", `${GROUP_PATH}/validatingwebhookconfigurations/${id}-v`);
  await kube.request("DELETE", `/api/v1/namespaces/${PROD}`);
  await kube.request("DELETE", `/api/v1/namespaces/${DEV}`);
  await hooks?.close();
});

const shortOf = (name: string) => (name.endsWith(SUFFIX) ? name.slice(0, -SUFFIX.length) : "");

/** Our hooks as the page predicts them: mutating calls in order ("m1@0"), validating as a set. */
async function predicted(page: Page) {
  const rows = page.getByTestId("call");
  await expect(page.getByTestId("verdict")).toBeVisible();
  const calls = await rows.evaluateAll((els) =>
    els.map((e) => ({
      hook: e.getAttribute("data-hook") ?? "",
      round: e.getAttribute("data-round") ?? "",
      stage: e.getAttribute("data-stage") ?? "",
    })),
  );
  const skips = await page.getByTestId("skip").evaluateAll((els) =>
    els.map((e) => ({
      hook: e.getAttribute("data-hook") ?? "",
      code: e.getAttribute("data-code") ?? "",
    })),
  );
  return {
    mutating: calls
      .filter((c) => c.stage === "mutating-webhook" && shortOf(c.hook))
      .map((c) => `${shortOf(c.hook)}@${c.round}`),
    validating: calls
      .filter((c) => c.stage === "validating-webhook" && shortOf(c.hook))
      .map((c) => shortOf(c.hook))
      .sort(),
    skips: Object.fromEntries(
      skips.filter((s) => shortOf(s.hook)).map((s) => [shortOf(s.hook), s.code]),
    ),
  };
}

/** Clicks "Try it for real" and returns what the recorders saw for that dry run. */
async function tryForReal(page: Page) {
  const from = hooks.nextSeq();
  await page.getByRole("button", { name: "Try it for real" }).click();
  await expect(page.getByTestId("dry-run-outcome")).toBeVisible();
  const calls = hooks.calls().filter((c) => c.seq >= from && shortOf(`${c.hook}${SUFFIX}`));
  for (const c of calls) expect(c.request.dryRun).toBe(true);
  const seen = new Map<string, number>();
  return {
    mutating: calls
      .filter((c) => c.hook.startsWith("m"))
      .map((c) => {
        const round = seen.get(c.hook) ?? 0;
        seen.set(c.hook, round + 1);
        return `${c.hook}@${round}`;
      }),
    validating: calls
      .filter((c) => c.hook.startsWith("v"))
      .map((c) => c.hook)
      .sort(),
  };
}

function configMap(name: string, namespace: string, labels: Record<string, string>): string {
  const l = Object.entries(labels)
    .map(([k, v]) => `\n    ${k}: "${v}"`)
    .join("");
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\n  labels:${l || " {}"}\ndata:\n  k: v\n`;
}

async function open(page: Page, object: string): Promise<void> {
  await page.goto("/predict");
  await expect(page.getByTestId("verdict")).toBeVisible();
  await page.getByLabel("Object", { exact: true }).fill(object);
}

test("calls, reinvocation and every skip reason match what the apiserver called", async ({
  page,
}) => {
  await open(page, configMap("keep-a", PROD, { app: "web" }));
  const p = await predicted(page);
  expect(p.mutating).toEqual(["m1@0", "m2@0", "m1@1"]);
  expect(p.validating).toEqual(["vcond", "vns", "vobj"]);
  expect(p.skips).toMatchObject({ vsecret: "rules", vdeny: "object-selector" });
  await expect(page.getByTestId("latency")).toContainText("20s");
  const seen = await tryForReal(page);
  expect(seen).toEqual({ mutating: p.mutating, validating: p.validating });
  await expect(page.getByTestId("dry-run-outcome")).toHaveText("Allowed");
  // The apiserver's own audit event for that dry run names the same mutating calls and rounds.
  await expect(page.getByTestId("audited-call")).toHaveText([
    new RegExp(`^m1${SUFFIX.replace(/\./g, "\\.")} round 0`),
    new RegExp(`^m2${SUFFIX.replace(/\./g, "\\.")} round 0`),
    new RegExp(`^m1${SUFFIX.replace(/\./g, "\\.")} round 1`),
  ]);
  await expect(page.getByTestId("audit-agrees")).toHaveCount(2);
  await expect(page.getByTestId("mismatch")).toHaveCount(0);

  // Another object: the objectSelector and the matchCondition now skip.
  await page.getByLabel("Object", { exact: true }).fill(configMap("drop-b", PROD, {}));
  const q = await predicted(page);
  expect(q.validating).toEqual(["vns"]);
  expect(q.skips).toMatchObject({ vobj: "object-selector", vcond: "match-condition-false" });
  await expect(page.getByTestId("skips-match-condition-false")).toContainText(
    "matchCondition keep-only evaluated to false",
  );
  expect(await tryForReal(page)).toEqual({ mutating: q.mutating, validating: q.validating });
});

test("a hook's predict link opens on a request the apiserver calls that hook for", async ({
  page,
}) => {
  // From the webhook's page: its health card links its prediction.
  await page.goto(`/webhooks/validatingwebhookconfigurations/${id}-v`);
  await page
    .getByRole("group", { name: `Health of vns${SUFFIX}` })
    .getByRole("link", { name: "predict" })
    .click();
  const note = page.getByTestId("hook-example");
  await expect(note).toHaveAttribute("data-called", "true");
  // Only the prod namespace satisfies its namespaceSelector (env=prod and this test's label).
  await expect(note).toContainText(`CREATE configmaps in namespace ${PROD}`);
  const p = await predicted(page);
  expect(p.validating).toContain("vns");
  // The hook is marked among the calls.
  await expect(page.locator("[data-testid=call][data-focus]")).toHaveAttribute(
    "data-hook",
    `vns${SUFFIX}`,
  );
  // The link now holds the request itself beside the hook: a reload shows the same, marked.
  await expect.poll(() => new URL(page.url()).searchParams.get("object")).toContain(PROD);
  expect(new URL(page.url()).searchParams.get("for")).toBe(
    `ValidatingWebhookConfiguration/${id}-v/vns${SUFFIX}`,
  );
  await page.reload();
  await expect(page.getByTestId("hook-example")).toHaveCount(0);
  expect((await predicted(page)).validating).toEqual(p.validating);
  await expect(page.locator("[data-testid=call][data-focus]")).toHaveAttribute(
    "data-hook",
    `vns${SUFFIX}`,
  );
  // The apiserver calls the hook for it, and exactly what was predicted.
  const seen = await tryForReal(page);
  expect(seen.validating).toContain("vns");
  expect(seen).toEqual({ mutating: p.mutating, validating: p.validating });

  // A hook no request reaches: said so, with the prediction of why.
  await page.goto(`/predict?for=ValidatingWebhookConfiguration/${id}-v/vcond${SUFFIX}`);
  await expect(page.getByTestId("hook-example")).toHaveAttribute("data-called", "false");
  expect((await predicted(page)).skips.vcond).toBe("match-condition-false");
  await expect(page.locator("[data-testid=skip][data-focus]")).toHaveAttribute(
    "data-code",
    "match-condition-false",
  );

  // A link with its own request keeps it; the hook is marked where it is skipped, in sight even
  // in the group of rule mismatches, which is otherwise folded.
  const q = new URLSearchParams({
    for: `ValidatingWebhookConfiguration/${id}-v/vsecret${SUFFIX}`,
    object: configMap("keep-e", PROD, {}),
  });
  await page.goto(`/predict?${q.toString()}`);
  await expect(page.getByTestId("verdict")).toBeVisible();
  await expect(page.getByTestId("hook-example")).toHaveCount(0);
  await expect(page.getByLabel("Object", { exact: true })).toHaveValue(/keep-e/);
  const marked = page.locator("[data-testid=skip][data-focus]");
  await expect(marked).toHaveAttribute("data-code", "rules");
  await expect(marked).toBeVisible();
});

test("a namespace what-if: the prediction for the edited labels is what the apiserver does once they are real", async ({
  page,
  kube,
}) => {
  await open(page, configMap("keep-c", DEV, { app: "web" }));
  let p = await predicted(page);
  expect(p.skips.vns).toBe("namespace-selector");
  await expect(page.getByTestId("namespace-labels")).toContainText("env=dev");
  expect((await tryForReal(page)).validating).toEqual(p.validating);

  await page.getByLabel("What-if namespace labels").check();
  const labels = page.getByLabel("Labels", { exact: true });
  await labels.fill(`${id}=1,env=prod`);
  p = await predicted(page);
  expect(p.validating).toEqual(["vcond", "vns", "vobj"]);
  await expect(page.getByTestId("namespace-labels")).toContainText("(what-if)");
  // The link carries the what-if: reopening it predicts the same.
  await expect
    .poll(() => new URL(page.url()).searchParams.get("nsLabels"))
    .toBe(`${id}=1,env=prod`);
  await page.reload();
  expect((await predicted(page)).validating).toEqual(p.validating);

  // Make the what-if real; the apiserver now calls what was predicted.
  const ns = JSON.parse((await kube.request("GET", `/api/v1/namespaces/${DEV}`)).body) as {
    metadata: Record<string, unknown> & { labels: Record<string, string> };
  };
  ns.metadata.labels.env = "prod";
  await ok(kube, "PUT", `/api/v1/namespaces/${DEV}`, ns);
  await expect
    .poll(async () => (await tryForReal(page)).validating, { timeout: 15_000 })
    .toEqual(p.validating);
});

test("a denial: the apiserver's verdict beside the prediction, the denier among the predicted calls", async ({
  page,
}) => {
  await open(page, configMap("keep-d", PROD, { app: "web", deny: "yes" }));
  const p = await predicted(page);
  expect(p.validating).toEqual(["vcond", "vdeny", "vns", "vobj"]);
  const seen = await tryForReal(page);
  expect(seen.validating).toEqual(p.validating);
  await expect(page.getByTestId("dry-run-outcome")).toContainText("Denied (403");
  await expect(page.getByTestId("dry-run-message")).toContainText("no deny=yes objects here");
  await expect(page.getByTestId("agrees")).toContainText(`denied by vdeny${SUFFIX}`);
});

test("the prediction follows the cluster: a hook added elsewhere is predicted once the tab is shown again, as the apiserver calls it", async ({
  page,
  kube,
  cleanup,
}) => {
  await open(page, configMap("keep-l", PROD, { app: "web" }));
  expect((await predicted(page)).validating).toEqual(["vcond", "vns", "vobj"]);
  await expect(page.getByTestId("state-read-at")).toContainText("read again every 30 s");
  expect((await tryForReal(page)).validating).toEqual(["vcond", "vns", "vobj"]);
  hooks.program("vlate", { type: "allow" });
  const late = `${id}-late`;
  await ok(kube, "POST", `${GROUP_PATH}/validatingwebhookconfigurations`, {
    metadata: { name: late },
    webhooks: [webhook("vlate", {})],
  });
  cleanup.defer(async () => {
    await kube.request("DELETE", `${GROUP_PATH}/validatingwebhookconfigurations/${late}`);
  });
  // The admin comes back to this tab (as after changing the hook in another one): no reload,
  // no edit of the request, and well before the 30 s re-read.
  await page.evaluate(() =>
    document.dispatchEvent(new Event("visibilitychange", { bubbles: true })),
  );
  await expect
    .poll(async () => (await predicted(page)).validating, { timeout: 10_000 })
    .toEqual(["vcond", "vlate", "vns", "vobj"]);
  // The earlier dry run was compared with the state before the hook: it is not compared with
  // the new prediction, and says so.
  await expect(page.getByTestId("dry-run-outdated")).toBeVisible();
  await expect(page.getByTestId("dry-run-outcome")).toHaveCount(0);
  await expect
    .poll(async () => (await tryForReal(page)).validating, { timeout: 15_000 })
    .toEqual(["vcond", "vlate", "vns", "vobj"]);
});

test("a CREATE in a namespace that does not exist: rejected before any hook, as the apiserver does", async ({
  page,
}) => {
  const ghost = `${id}-ghost`;
  await open(page, configMap("keep-g", ghost, { app: "web" }));
  await expect(page.getByTestId("verdict")).toHaveText("Rejected by admission");
  await expect(page.getByTestId("predicted-failure")).toContainText(
    `404: namespaces "${ghost}" not found`,
  );
  const p = await predicted(page);
  expect([...p.mutating, ...p.validating]).toEqual([]);
  const seen = await tryForReal(page);
  expect([...seen.mutating, ...seen.validating]).toEqual([]);
  await expect(page.getByTestId("dry-run-message")).toContainText(
    `namespaces "${ghost}" not found`,
  );
  await expect(page.getByTestId("agrees")).toContainText(
    "rejected as predicted, by NamespaceLifecycle",
  );
  await expect(page.getByTestId("dry-run-predicted")).toHaveText(
    `Rejected: 404 namespaces "${ghost}" not found`,
  );
});

test("a DELETE of a pod's status: refused by the router before admission (405), as the apiserver does", async ({
  page,
}) => {
  await page.goto("/predict?op=DELETE&sub=status");
  await expect(page.getByTestId("verdict")).toBeVisible();
  await page
    .getByLabel("Object being deleted", { exact: true })
    .fill(`apiVersion: v1\nkind: Pod\nmetadata:\n  name: keep-s\n  namespace: ${PROD}\n`);
  await expect(page.getByTestId("verdict")).toHaveText("Refused before admission");
  await expect(page.getByTestId("predicted-failure")).toContainText(
    "405: the server does not allow this method on the requested resource",
  );
  await expect(page.getByTestId("predicted-failure")).toContainText("router");
  const seen = await tryForReal(page);
  expect([...seen.mutating, ...seen.validating]).toEqual([]);
  await expect(page.getByTestId("dry-run-message")).toContainText(
    "the server does not allow this method on the requested resource",
  );
  await expect(page.getByTestId("agrees")).toContainText(
    "rejected as predicted, by the apiserver's router",
  );
  await expect(page.getByTestId("dry-run-predicted")).toHaveText(
    "Refused before admission: 405 the server does not allow this method on the requested resource",
  );
});

test("a connect subresource has no dry run, whatever the operation: nothing is sent", async ({
  page,
}) => {
  await page.goto(`/predict?op=UPDATE&sub=proxy`);
  await expect(page.getByTestId("verdict")).toBeVisible();
  await page
    .getByLabel("New object", { exact: true })
    .fill(`apiVersion: v1\nkind: Pod\nmetadata:\n  name: keep-p\n  namespace: ${PROD}\n`);
  // A PUT to pods/…/proxy is admitted as CONNECT: no hook is consulted for an UPDATE.
  await expect(page.getByTestId("verdict")).toHaveText("Never admitted as UPDATE");
  await expect(page.getByTestId("exclusions")).toContainText(
    "admitted as CONNECT, never as UPDATE",
  );
  await page.getByRole("button", { name: "Try it for real" }).click();
  await expect(page.getByTestId("dry-run-outcome")).toHaveText("Not sent");
  await expect(page.getByTestId("dry-run-message")).toContainText(
    "pods/proxy is a connect subresource",
  );
});

test("a pod the namespace's enforced Pod Security Standard forbids: refused by PodSecurity before any validating webhook, as the apiserver does", async ({
  page,
  kube,
  cleanup,
}) => {
  const locked = `${id}-locked`;
  const config = `${id}-vpod`;
  const podRule = [
    { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
  ];
  hooks.program("vpod", { type: "allow" });
  await ok(kube, "POST", "/api/v1/namespaces", {
    metadata: {
      name: locked,
      labels: { [id]: "1", "pod-security.kubernetes.io/enforce": "restricted" },
    },
  });
  await ok(kube, "POST", `${GROUP_PATH}/validatingwebhookconfigurations`, {
    metadata: { name: config },
    webhooks: [webhook("vpod", { rules: podRule })],
  });
  const pod = (name: string, hardened: boolean) =>
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  namespace: ${locked}\nspec:\n` +
    (hardened
      ? "  securityContext:\n    runAsNonRoot: true\n    seccompProfile:\n      type: RuntimeDefault\n"
      : "") +
    "  containers:\n  - name: app\n    image: registry.k8s.io/pause\n" +
    (hardened
      ? "    securityContext:\n      allowPrivilegeEscalation: false\n      capabilities:\n        drop: [ALL]\n"
      : "");
  cleanup.defer(async () => {
    await kube.request("DELETE", `${GROUP_PATH}/validatingwebhookconfigurations/${config}`);
    await kube.request("DELETE", `/api/v1/namespaces/${locked}`);
  });
  // Until the namespace's default service account exists and the apiserver calls the hook.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const from = hooks.nextSeq();
    await kube.request("POST", `/api/v1/namespaces/${locked}/pods?dryRun=All`, {
      metadata: { name: "keep-probe" },
      spec: {
        securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
        containers: [
          {
            name: "app",
            image: "registry.k8s.io/pause",
            securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
          },
        ],
      },
    });
    if (hooks.calls("vpod").some((c) => c.seq >= from)) break;
    if (Date.now() > deadline) throw new Error("the apiserver never called vpod");
    await new Promise((r) => setTimeout(r, 250));
  }
  const message = `pods "keep-root" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`;
  await open(page, pod("keep-root", false));
  await expect(page.getByTestId("verdict")).toHaveText("Refused by PodSecurity");
  await expect(page.getByTestId("predicted-failure")).toContainText(`403: ${message}`);
  await expect(page.getByTestId("pod-security-verdict")).toContainText(`Refused: 403 ${message}`);
  expect(await serious(page)).toEqual([]);
  expect((await predicted(page)).skips["vpod"]).toBe("excluded");
  const refused = await tryForReal(page);
  expect(refused.validating).toEqual([]);
  await expect(page.getByTestId("dry-run-message")).toContainText(message);
  await expect(page.getByTestId("agrees")).toContainText(
    "rejected as predicted, by PodSecurity before the validating hooks",
  );
  await expect(page.getByTestId("dry-run-predicted")).toHaveText(
    `Rejected by PodSecurity: 403 ${message}`,
  );
  // Hardened, the same pod passes PodSecurity and reaches the validating webhook.
  await open(page, pod("keep-hardened", true));
  await expect(page.getByTestId("verdict")).toHaveText("Admitted as far as matching decides");
  await expect(page.getByTestId("pod-security-verdict")).toHaveText("Allowed");
  expect((await predicted(page)).validating).toEqual(["vpod"]);
  expect((await tryForReal(page)).validating).toEqual(["vpod"]);
  await expect(page.getByTestId("agrees")).toContainText("admitted, as predicted");
});

test("a CREATE in a Terminating namespace: rejected with 403 before any hook, as the apiserver does", async ({
  page,
  kube,
  cleanup,
}) => {
  // Deleted, and held Terminating by a finalizer of ours (the namespace controller removes only
  // its own); every hook of this file would otherwise see configmaps created in it.
  const doomed = `${id}-doomed`;
  const hold = "portcullis.test/hold";
  await ok(kube, "POST", "/api/v1/namespaces", {
    metadata: { name: doomed, labels: { [id]: "1", env: "prod" }, finalizers: [hold] },
  });
  cleanup.defer(async () => {
    const res = await kube.request("GET", `/api/v1/namespaces/${doomed}`);
    if (res.status === 200) {
      const ns = JSON.parse(res.body) as { metadata: { finalizers?: string[] } };
      ns.metadata.finalizers = (ns.metadata.finalizers ?? []).filter((f) => f !== hold);
      await kube.request("PUT", `/api/v1/namespaces/${doomed}`, ns);
    }
  });
  await ok(kube, "DELETE", `/api/v1/namespaces/${doomed}`);
  const message = `configmaps "keep-t" is forbidden: unable to create new content in namespace ${doomed} because it is being terminated`;
  await open(page, configMap("keep-t", doomed, { app: "web" }));
  await expect(page.getByTestId("verdict")).toHaveText("Rejected by admission");
  await expect(page.getByTestId("predicted-failure")).toContainText(`403: ${message}`);
  await expect(page.getByTestId("predicted-failure")).toContainText("NamespaceLifecycle");
  await expect(page.getByTestId("namespace-labels")).toContainText("being terminated");
  const p = await predicted(page);
  expect([...p.mutating, ...p.validating]).toEqual([]);
  const seen = await tryForReal(page);
  expect([...seen.mutating, ...seen.validating]).toEqual([]);
  await expect(page.getByTestId("dry-run-message")).toContainText(message);
  await expect(page.getByTestId("agrees")).toContainText(
    "rejected as predicted, by NamespaceLifecycle",
  );
});

test("invalid YAML is pointed at where it is", async ({ page }) => {
  await open(page, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n");
  const err = page.getByRole("alert").filter({ hasText: "Line" });
  await expect(err).toContainText(/Line \d+, column \d+/);
  await expect(page.getByLabel("Object", { exact: true })).toHaveAttribute("aria-invalid", "true");
});

test("params from live state: a binding whose paramRef finds nothing (Allow) is not evaluated", async ({
  page,
  kube,
  cleanup,
}) => {
  const policy = `${id}-params.portcullis.test`;
  const binding = `${id}-params-allow`;
  const param = `${id}-limits`;
  const vap = "/apis/admissionregistration.k8s.io/v1";
  await ok(kube, "POST", `${vap}/validatingadmissionpolicies`, {
    metadata: { name: policy },
    spec: {
      failurePolicy: "Fail",
      paramKind: { apiVersion: "v1", kind: "ConfigMap" },
      matchConstraints: { resourceRules: cmRule(), namespaceSelector: ours },
      validations: [{ expression: "object.metadata.name != 'keep-p'", message: "evaluated" }],
    },
  });
  await ok(kube, "POST", `${vap}/validatingadmissionpolicybindings`, {
    metadata: { name: binding },
    spec: {
      policyName: policy,
      validationActions: ["Deny"],
      paramRef: { name: param, parameterNotFoundAction: "Allow" },
    },
  });
  const probe = async () =>
    (
      await kube.request("POST", `/api/v1/namespaces/${PROD}/configmaps?dryRun=All`, {
        metadata: { name: "keep-p" },
      })
    ).status;
  const paramPath = `/api/v1/namespaces/${PROD}/configmaps`;
  cleanup.defer(async () => {
    await kube.request("DELETE", `${vap}/validatingadmissionpolicybindings/${binding}`);
    await kube.request("DELETE", `${vap}/validatingadmissionpolicies/${policy}`);
  });
  // With the param present the policy denies: proof the apiserver has the policy and binding.
  await ok(kube, "POST", paramPath, { metadata: { name: param } });
  await expect.poll(probe, { timeout: 20_000 }).toBe(422);
  await ok(kube, "DELETE", `${paramPath}/${param}`);
  await expect.poll(probe, { timeout: 20_000 }).toBe(201);

  await open(page, configMap("keep-p", PROD, {}));
  const skip = page.locator(`[data-testid="skip"][data-hook="${binding}"]`);
  await expect(skip).toHaveAttribute("data-code", "params-not-found");
  await expect(skip).toContainText(`paramRef finds no ConfigMap ${param} in namespace ${PROD}`);
  await tryForReal(page);
  await expect(page.getByTestId("dry-run-outcome")).toHaveText("Allowed");
  await expect(page.getByTestId("mismatch")).toHaveCount(0);

  // The param appears: the binding is evaluated once, and its validation denies.
  await ok(kube, "POST", paramPath, { metadata: { name: param } });
  await expect.poll(probe, { timeout: 20_000 }).toBe(422);
  // The request lives in the page's address (written once typing pauses): reload from it.
  await expect(page).toHaveURL(/keep-p/);
  await page.reload();
  await expect(page.getByLabel("Object", { exact: true })).toHaveValue(/keep-p/);
  const call = page.locator(`[data-testid="call"][data-hook="${binding}"]`);
  await expect(call).toContainText(`1 found (${PROD}/${param})`);
  await tryForReal(page);
  await expect(page.getByTestId("dry-run-outcome")).toContainText("Denied (422");
  await expect(page.getByTestId("dry-run-message")).toContainText("evaluated");
  await expect(page.getByTestId("agrees")).toContainText(`denied by ${policy} ← ${binding}`);
});

test("failing policies: the apiserver names one, the page lists the others; a Warn binding's failed condition is its decision", async ({
  page,
  kube,
  cleanup,
}) => {
  const vap = "/apis/admissionregistration.k8s.io/v1";
  const label = `${id}-cond`;
  // request.subResource is absent from a create without a subresource: selecting it fails.
  const policy = (name: string) => ({
    metadata: { name },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: {
        resourceRules: cmRule(),
        namespaceSelector: ours,
        objectSelector: { matchLabels: { [label]: "1" } },
      },
      matchConditions: [{ name: "plain", expression: "request.subResource == ''" }],
      validations: [{ expression: "true" }],
    },
  });
  const names = ["a", "b", "w"].map((x) => `${id}-cond-${x}.portcullis.test`);
  const [a, b, w] = names as [string, string, string];
  const error =
    "expression 'request.subResource == ''' resulted in error: no such key: subResource";
  cleanup.defer(async () => {
    for (const name of names) {
      await kube.request("DELETE", `${vap}/validatingadmissionpolicybindings/${name}-b`);
      await kube.request("DELETE", `${vap}/validatingadmissionpolicies/${name}`);
    }
  });
  for (const [name, actions] of [
    [a, ["Deny"]],
    [b, ["Deny"]],
    [w, ["Warn"]],
  ] as const) {
    await ok(kube, "POST", `${vap}/validatingadmissionpolicies`, policy(name));
    await ok(kube, "POST", `${vap}/validatingadmissionpolicybindings`, {
      metadata: { name: `${name}-b` },
      spec: { policyName: name, validationActions: actions },
    });
  }
  // The apiserver has all three once a dry run both fails and warns.
  await expect
    .poll(
      async () => {
        const r = await kube.request("POST", `/api/v1/namespaces/${PROD}/configmaps?dryRun=All`, {
          metadata: { name: "keep-c", labels: { [label]: "1" } },
        });
        const warned = String(r.headers?.warning ?? "").includes(`'${w}-b'`);
        return `${r.status} ${warned}`;
      },
      { timeout: 20_000 },
    )
    .toBe("422 true");

  await open(page, configMap("keep-c", PROD, { [label]: "1" }));
  await expect(page.getByTestId("predicted-failure")).toContainText(`422: `);
  await expect(page.getByTestId("predicted-failure")).toContainText(error);
  const also = page.getByTestId("also-failing");
  await expect(also).toContainText("1 more failing binding in this stage");
  await also.locator("summary").click();
  await expect(also).toContainText(`ValidatingAdmissionPolicy '${b}' with binding '${b}-b'`);
  const warn = page.locator(`[data-testid="call"][data-hook="${w}-b"]`);
  await expect(warn.getByTestId("condition-error")).toContainText(error);
  await expect(warn).toContainText("an evaluation error is a warning");
  await page.screenshot({ path: "e2e/artifacts/predict-failing-policies.png", fullPage: true });
  // The page in this state (open disclosure, condition errors) has no serious axe findings.
  expect(await serious(page)).toEqual([]);

  await tryForReal(page);
  await expect(page.getByTestId("dry-run-outcome")).toContainText("Denied (422");
  await expect(page.getByTestId("agrees")).toContainText("rejected as predicted");
  await expect(page.getByTestId("mismatch")).toHaveCount(0);
});
