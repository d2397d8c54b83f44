/**
 * The predict page's prediction beside what the real apiserver does with the same request:
 * NamespaceLifecycle refuses a CREATE in a namespace the cluster does not have (404) or in one
 * being terminated (403), and a DELETE of an immortal namespace (403), before any hook; it lets a
 * CONNECT in a missing namespace, and the DELETE of any other namespace, through to the hooks.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { startWebhookServer, type WebhookServer } from "../../cluster/harness/webhook-server";
import { adminKube, type AdminKube } from "../../test/oracle/admin-kube";
import { KubeClient } from "@/server/kube/client";
import { kubeConfigFor } from "@/server/kube/config";
import { readAdmissionState } from "@/server/kube/admission-state";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { predictPage, type LiveInputs } from "@/lib/predict/page-request";
import { DEFAULT_STATE } from "@/lib/predict/page-state";

const id = `nl${Date.now().toString(36)}`;
const CONFIG = `${id}-recorder`;
const GHOST = `${id}-ghost`;
const HOOK = `all.${id}.portcullis.test`;
/** Deleted, and held Terminating by a finalizer of ours until the tests end. */
const DOOMED = `${id}-doomed`;
/** A namespace whose (dry-run) DELETE reaches the hooks. */
const ALIVE = `${id}-alive`;
const HOLD = "portcullis.test/hold";
const NS_HOOK = `ns.${id}.portcullis.test`;

let stack: StackInfo;
let admin: AdminKube;
let recorder: WebhookServer;

beforeAll(async () => {
  stack = readStack();
  admin = adminKube(stack);
  recorder = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
  recorder.program("all", { type: "allow" });
  recorder.program("ns", { type: "allow" });
  await admin.kubeOk("POST", "/api/v1/namespaces", { metadata: { name: ALIVE } });
  // Every namespaced CREATE and CONNECT of configmaps and pods/exec, with no selector; and the
  // DELETE of this test's namespaces and kube-public.
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
        recorder.webhook(NS_HOOK, "ns", {
          rules: [
            {
              operations: ["DELETE"],
              apiGroups: [""],
              apiVersions: ["v1"],
              resources: ["namespaces"],
            },
          ],
          namespaceSelector: {
            matchExpressions: [
              {
                key: "kubernetes.io/metadata.name",
                operator: "In",
                values: ["kube-public", ALIVE, DOOMED],
              },
            ],
          },
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
  // Terminating, and kept so: the namespace controller empties it and removes its own finalizer,
  // but not ours.
  await admin.kubeOk("POST", "/api/v1/namespaces", {
    metadata: { name: DOOMED, finalizers: [HOLD] },
  });
  await admin.kubeOk("DELETE", `/api/v1/namespaces/${DOOMED}`);
});

afterAll(async () => {
  await admin
    ?.kube(
      "DELETE",
      `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${CONFIG}`,
    )
    .catch(() => undefined);
  await releaseDoomed().catch(() => undefined);
  await admin?.kube("DELETE", `/api/v1/namespaces/${ALIVE}`).catch(() => undefined);
  await recorder?.close();
});

/** Removes our finalizer from the terminating namespace, so its deletion completes. */
async function releaseDoomed(): Promise<void> {
  if (!admin) return;
  for (let attempt = 0; attempt < 5; attempt++) {
    const res = await admin.kube("GET", `/api/v1/namespaces/${DOOMED}`);
    if (res.status === 404) return;
    const ns = JSON.parse(res.body) as { metadata: { finalizers?: string[] } };
    ns.metadata.finalizers = (ns.metadata.finalizers ?? []).filter((f) => f !== HOLD);
    const put = await admin.kube("PUT", `/api/v1/namespaces/${DOOMED}`, ns);
    if (put.status < 300 || put.status === 404) return;
    if (put.status !== 409) throw new Error(`releasing ${DOOMED}: ${put.status} ${put.body}`);
  }
}

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

/** The apiserver's answer: status code and message. */
async function answer(method: string, path: string, body?: unknown) {
  const res = await admin.kube(method, path, body);
  const status = JSON.parse(res.body) as { message?: string };
  return { status: res.status, message: status.message };
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

test("a CREATE in a Terminating namespace: the apiserver refuses it with 403 before any hook, as predicted", async () => {
  const phase = JSON.parse((await admin.kube("GET", `/api/v1/namespaces/${DOOMED}`)).body) as {
    status?: { phase?: string };
  };
  expect(phase.status?.phase).toBe("Terminating");
  const inputs = await live();
  expect(inputs.namespaces[DOOMED]).toBeDefined();
  expect(inputs.compiled.terminatingNamespaces.has(DOOMED)).toBe(true);

  for (const metadata of [{ name: "c" }, { generateName: "gen-" }]) {
    const meta =
      "name" in metadata ? `name: ${metadata.name}` : `generateName: ${metadata.generateName}`;
    const p = predictPage(
      {
        ...DEFAULT_STATE,
        object: `apiVersion: v1\nkind: ConfigMap\nmetadata: {${meta}, namespace: ${DOOMED}}\n`,
        dryRun: true,
      },
      inputs,
    );
    if (!p.ok) throw new Error(JSON.stringify(p.problems));

    recorder.clearCalls();
    const path = `/api/v1/namespaces/${DOOMED}/configmaps`;
    const body = { metadata: { ...metadata, namespace: DOOMED } };
    const dry = await answer("POST", `${path}?dryRun=All`, body);
    // The dry run is refused exactly as the real create is.
    const real = await answer("POST", path, body);
    expect(real).toEqual(dry);
    expect(dry.status).toBe(403);
    expect(recorder.calls("all")).toEqual([]);

    expect(p.report.admitted).toBe(false);
    expect(p.report.calls.filter((c) => c.hook.name === HOOK)).toEqual([]);
    expect(p.report.rejectedBeforeHooks).toEqual({ plugin: "NamespaceLifecycle", ...dry });
  }
});

test("a DELETE of kube-public: the apiserver refuses it with 403 before any hook, as predicted; another namespace's reaches the hooks", async () => {
  const inputs = await live();
  const predictDelete = (name: string) => {
    const p = predictPage(
      {
        ...DEFAULT_STATE,
        object: `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${name}}\n`,
        operation: "DELETE",
        dryRun: true,
      },
      inputs,
    );
    if (!p.ok) throw new Error(JSON.stringify(p.problems));
    return p.report;
  };

  // A dry run: nothing is deleted whatever admission says; admission refuses it all the same.
  recorder.clearCalls();
  const refused = await answer("DELETE", "/api/v1/namespaces/kube-public?dryRun=All", {
    apiVersion: "v1",
    kind: "DeleteOptions",
    dryRun: ["All"],
  });
  expect(refused.status).toBe(403);
  expect(recorder.calls("ns")).toEqual([]);
  const kept = JSON.parse((await admin.kube("GET", "/api/v1/namespaces/kube-public")).body) as {
    metadata?: { deletionTimestamp?: string };
    status?: { phase?: string };
  };
  expect(kept.metadata?.deletionTimestamp).toBeUndefined();
  expect(kept.status?.phase).toBe("Active");

  const immortal = predictDelete("kube-public");
  expect(immortal.admitted).toBe(false);
  expect(immortal.calls).toEqual([]);
  expect(immortal.rejectedBeforeHooks).toEqual({ plugin: "NamespaceLifecycle", ...refused });

  // The same DELETE of a namespace that is not immortal reaches the hook.
  recorder.clearCalls();
  const allowed = await answer("DELETE", `/api/v1/namespaces/${ALIVE}?dryRun=All`, {
    apiVersion: "v1",
    kind: "DeleteOptions",
    dryRun: ["All"],
  });
  expect(allowed.status).toBe(200);
  expect(recorder.calls("ns").map((c) => c.request.operation)).toEqual(["DELETE"]);
  const mortal = predictDelete(ALIVE);
  expect(mortal.rejectedBeforeHooks).toBeNull();
  expect(mortal.calls.map((c) => c.hook.name)).toContain(NS_HOOK);
});
