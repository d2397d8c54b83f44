/**
 * Exemption matrix cells for hooks whose rules match a request the apiserver still never hands
 * them, beside the real apiserver: a webhook with an objectSelector on a CONNECT (pods/exec; the
 * options object has no labels), and a mutating admission policy on a DELETE (its plugin is not
 * consulted for DELETE). Their cells must not read intercepted; the same hooks' cells for requests
 * the apiserver does hand them do.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { startWebhookServer, type WebhookServer } from "../../cluster/harness/webhook-server";
import { adminKube, type AdminKube } from "../../test/oracle/admin-kube";
import { KubeClient } from "@/server/kube/client";
import { kubeConfigFor } from "@/server/kube/config";
import { readAdmissionState } from "@/server/kube/admission-state";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { INTERCEPTED, exemptionMatrix } from "@/lib/admission/exemptions/exemptions";
import { cellReader, matrixRows } from "@/lib/admission/exemptions/exemption-views";
import { readParams, requestOf } from "@/lib/namespaces/matrix-params";

const id = `cm${Date.now().toString(36)}`;
const CONFIG = `${id}-exec`;
const POLICY = `${id}-map`;
const LABEL = `portcullis.test/${id}`;
const ADM = "/apis/admissionregistration.k8s.io/v1";
const LABELLED = `labelled.${id}.portcullis.test`;
const PLAIN = `plain.${id}.portcullis.test`;
const exec = {
  rules: [
    { operations: ["CONNECT"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods/exec"] },
  ],
  // Fail-open: a call this test does not expect must not break other tests' requests.
  failurePolicy: "Ignore",
};

let stack: StackInfo;
let admin: AdminKube;
let recorder: WebhookServer;

beforeAll(async () => {
  stack = readStack();
  admin = adminKube(stack);
  recorder = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
  recorder.program("labelled", { type: "allow" });
  recorder.program("plain", { type: "allow" });
  await admin.kubeOk(
    "POST",
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
    {
      metadata: { name: CONFIG },
      webhooks: [
        // A selector an unlabelled object satisfies: still never met by a CONNECT's options.
        recorder.webhook(LABELLED, "labelled", {
          ...exec,
          objectSelector: { matchExpressions: [{ key: "app", operator: "DoesNotExist" }] },
        }),
        recorder.webhook(PLAIN, "plain", exec),
      ],
    },
  );
});

afterAll(async () => {
  for (const p of [
    `${ADM}/mutatingadmissionpolicybindings/${POLICY}`,
    `${ADM}/mutatingadmissionpolicies/${POLICY}`,
    `/api/v1/namespaces/default/configmaps/${id}-kept`,
  ])
    await admin?.kube("DELETE", p).catch(() => undefined);
  await admin
    ?.kube(
      "DELETE",
      `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${CONFIG}`,
    )
    .catch(() => undefined);
  await recorder?.close();
});

test("pods/exec CONNECT: cells read intercepted exactly for the hooks the apiserver calls", async () => {
  // Admission runs before the connection (the pod's absence is found after the hooks); wait
  // until the apiserver has the configuration, i.e. calls the plain hook.
  const deadline = Date.now() + 20_000;
  for (;;) {
    recorder.clearCalls();
    await admin.kube("POST", "/api/v1/namespaces/default/pods/web/exec?command=sh&stdout=true");
    if (recorder.calls("plain").length > 0 || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const called = new Set(recorder.calls().map((c) => c.hook));
  expect(called).toEqual(new Set(["plain"]));

  const client = new KubeClient(
    stack.contexts.admin,
    kubeConfigFor(stack.contexts.admin, [stack.kubeconfig]),
  );
  const snapshot = compileSnapshot((await readAdmissionState(client)).snapshot);
  const m = exemptionMatrix(
    snapshot,
    "runlevel",
    requestOf(readParams(new URLSearchParams("resource=pods/exec&op=CONNECT"))),
  );
  const read = cellReader(m);
  const row = matrixRows(m).find((r) => r.kind === "namespace" && r.name === "default");
  if (row?.kind !== "namespace") throw new Error("no row for namespace default");
  for (const [name, short] of [
    [LABELLED, "labelled"],
    [PLAIN, "plain"],
  ] as const) {
    const h = m.hooks.findIndex((x) => x.hook.name === name);
    expect(h).toBeGreaterThanOrEqual(0);
    expect({ name, intercepted: read("default", row.g, h) === INTERCEPTED }).toEqual({
      name,
      intercepted: called.has(short),
    });
  }
});

test("configmaps DELETE: a mutating policy whose rules match it is not consulted, as the matrix says", async () => {
  // Only objects labelled for this test: the policy fails every request it is consulted for.
  await admin.kubeOk("POST", "/api/v1/namespaces/default/configmaps", {
    metadata: { name: `${id}-kept`, labels: { [LABEL]: "x" } },
  });
  await admin.kubeOk("POST", `${ADM}/mutatingadmissionpolicies`, {
    metadata: { name: POLICY },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: {
        resourceRules: [
          { operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
        ],
        objectSelector: { matchLabels: { [LABEL]: "x" } },
      },
      reinvocationPolicy: "Never",
      mutations: [
        {
          patchType: "JSONPatch",
          jsonPatch: {
            expression:
              '[JSONPatch{op: "add", path: "/data/x", value: string(object.data["none"])}]',
          },
        },
      ],
    },
  });
  await admin.kubeOk("POST", `${ADM}/mutatingadmissionpolicybindings`, {
    metadata: { name: POLICY },
    spec: { policyName: POLICY },
  });
  // Consulted for a CREATE (it fails it) once the apiserver has it.
  const deadline = Date.now() + 20_000;
  let created = 0;
  for (;;) {
    created = (
      await admin.kube("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", {
        metadata: { name: `${id}-new`, labels: { [LABEL]: "x" } },
      })
    ).status;
    if (created >= 400 || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(created).toBe(403);
  const deleted = await admin.kube(
    "DELETE",
    `/api/v1/namespaces/default/configmaps/${id}-kept?dryRun=All`,
  );
  expect(deleted.status).toBe(200);

  const client = new KubeClient(
    stack.contexts.admin,
    kubeConfigFor(stack.contexts.admin, [stack.kubeconfig]),
  );
  const snapshot = compileSnapshot((await readAdmissionState(client)).snapshot);
  const cell = (op: string) => {
    const m = exemptionMatrix(
      snapshot,
      "runlevel",
      requestOf(readParams(new URLSearchParams(`resource=configmaps&op=${op}`))),
    );
    const row = matrixRows(m).find((r) => r.kind === "namespace" && r.name === "default");
    const h = m.hooks.findIndex((x) => x.hook.configuration === POLICY);
    if (row?.kind !== "namespace" || h < 0) throw new Error("no cell for the policy in default");
    return cellReader(m)("default", row.g, h) === INTERCEPTED;
  };
  expect({ CREATE: cell("CREATE"), DELETE: cell("DELETE") }).toEqual({
    CREATE: true,
    DELETE: false,
  });
});
