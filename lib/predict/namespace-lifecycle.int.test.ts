/**
 * The predict page's prediction for a request in a namespace the cluster does not have, beside
 * what the real apiserver does with it (dry run): NamespaceLifecycle refuses a CREATE there before
 * any hook, and lets a CONNECT through to the hooks.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { startWebhookServer, type WebhookServer } from "../../cluster/harness/webhook-server";
import { adminKube, type AdminKube } from "../../test/oracle/admin-kube";
import { KubeClient } from "@/server/kube/client";
import { kubeConfigFor } from "@/server/kube/config";
import { readAdmissionState } from "@/server/kube/admission-state";
import { compileSnapshot } from "@/lib/admission/compile";
import { predictPage, type LiveInputs } from "@/lib/predict/page-request";
import { DEFAULT_STATE } from "@/lib/predict/page-state";

const id = `nl${Date.now().toString(36)}`;
const CONFIG = `${id}-recorder`;
const GHOST = `${id}-ghost`;
const HOOK = `all.${id}.portcullis.test`;

let stack: StackInfo;
let admin: AdminKube;
let recorder: WebhookServer;

beforeAll(async () => {
  stack = readStack();
  admin = adminKube(stack);
  recorder = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
  recorder.program("all", { type: "allow" });
  // Every namespaced CREATE and CONNECT of configmaps and pods/exec, with no selector.
  await admin.kubeOk(
    "POST",
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
    {
      metadata: { name: CONFIG },
      webhooks: [
        recorder.webhook(HOOK, "all", {
          rules: [
            {
              operations: ["CREATE", "CONNECT"],
              apiGroups: [""],
              apiVersions: ["v1"],
              resources: ["configmaps", "pods/exec"],
            },
          ],
        }),
      ],
    },
  );
  // The configuration takes effect once the apiserver's informer has it.
  const deadline = Date.now() + 20_000;
  for (;;) {
    recorder.clearCalls();
    await admin.kube("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", {
      metadata: { name: "probe" },
    });
    if (recorder.calls("all").length > 0 || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 200));
  }
});

afterAll(async () => {
  await admin
    ?.kube(
      "DELETE",
      `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${CONFIG}`,
    )
    .catch(() => undefined);
  await recorder?.close();
});

async function live(): Promise<LiveInputs> {
  const client = new KubeClient(
    stack.contexts.admin,
    kubeConfigFor(stack.contexts.admin, [stack.kubeconfig]),
  );
  const state = await readAdmissionState(client);
  return {
    compiled: compileSnapshot(state.snapshot),
    discovery: state.snapshot.discovery ?? [],
    namespaces: state.snapshot.namespaces ?? {},
    identity: state.identity,
  };
}

test("a CREATE in a missing namespace: the apiserver refuses it before any hook, as predicted", async () => {
  const inputs = await live();
  expect(inputs.namespaces[GHOST]).toBeUndefined();
  const p = predictPage(
    {
      ...DEFAULT_STATE,
      object: `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ${GHOST}}\n`,
      dryRun: true,
    },
    inputs,
  );
  if (!p.ok) throw new Error(JSON.stringify(p.problems));

  recorder.clearCalls();
  const res = await admin.kube("POST", `/api/v1/namespaces/${GHOST}/configmaps?dryRun=All`, {
    metadata: { name: "c", namespace: GHOST },
  });
  const status = JSON.parse(res.body) as { message?: string };
  expect(res.status).toBe(404);
  expect(recorder.calls("all")).toEqual([]);

  expect(p.report.admitted).toBe(false);
  expect(p.report.calls.filter((c) => c.hook.name === HOOK)).toEqual([]);
  expect(p.report.rejectedBeforeHooks).toEqual({
    plugin: "NamespaceLifecycle",
    status: res.status,
    message: status.message,
  });
});

test("a CONNECT in a missing namespace reaches the hooks, as predicted", async () => {
  const inputs = await live();
  const p = predictPage(
    {
      ...DEFAULT_STATE,
      object: "apiVersion: v1\nkind: PodExecOptions\ncommand: [sh]\nstdout: true\n",
      operation: "CONNECT",
      subresource: "exec",
      namespace: GHOST,
    },
    inputs,
  );
  if (!p.ok) throw new Error(JSON.stringify(p.problems));

  recorder.clearCalls();
  // Admission runs before the connection: the pod's absence is found after the hooks.
  await admin.kube("POST", `/api/v1/namespaces/${GHOST}/pods/web/exec?command=sh&stdout=true`);
  expect(recorder.calls("all").map((c) => c.request.operation)).toEqual(["CONNECT"]);

  expect(p.report.rejectedBeforeHooks).toBeNull();
  expect(p.report.calls.map((c) => c.hook.name)).toContain(HOOK);
});
