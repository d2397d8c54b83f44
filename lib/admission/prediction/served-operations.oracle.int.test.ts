/**
 * Which operations reach admission on which resources, as served-operations.ts reads them from
 * discovery, beside what the real apiserver does:
 * - every resource and subresource it serves, with POST, PUT and DELETE (dry runs, on names that
 *   do not exist): refused by the router (405, or 404 where no method is served at the path)
 *   exactly where the prediction says so, with its status and message;
 * - every connect subresource of pods and services, with each method discovery lists for it:
 *   admitted as CONNECT, as predicted; an eviction (a POST to another subresource): as CREATE.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { readStack, type StackInfo } from "../../../cluster/harness/stack";
import { startWebhookServer, type WebhookServer } from "../../../cluster/harness/webhook-server";
import { adminKube, type AdminKube } from "../../../test/oracle/admin-kube";
import { KubeClient } from "@/server/kube/client";
import { kubeConfigFor } from "@/server/kube/config";
import { readDiscovery } from "@/server/kube/admission-state";
import { makeRequest } from "@/lib/admission/model/request";
import type { DiscoveryResource } from "@/lib/admission/model/snapshot";
import type { AdmissionOperation } from "@/lib/k8s/types";
import {
  METHOD_NOT_ALLOWED,
  PATH_NOT_FOUND,
  reachesAdmission,
  unservedOperation,
} from "@/lib/admission/prediction/served-operations";

const id = `so${Date.now().toString(36)}`;
const NS = `${id}-ns`;
const CONFIG = `${id}-recorder`;
const HOOK = `subresources.${id}.portcullis.test`;
const ABSENT = `${id}-absent`;

let stack: StackInfo;
let admin: AdminKube;
let recorder: WebhookServer;
let discovery: DiscoveryResource[];

beforeAll(async () => {
  stack = readStack();
  admin = adminKube(stack);
  recorder = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
  recorder.program("sub", { type: "allow" });
  await admin.kubeOk("POST", "/api/v1/namespaces", { metadata: { name: NS } });
  // Every operation on the subresources of pods and services, in this test's namespace only.
  await admin.kubeOk(
    "POST",
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
    {
      metadata: { name: CONFIG },
      webhooks: [
        recorder.webhook(HOOK, "sub", {
          rules: [
            {
              operations: ["*"],
              apiGroups: [""],
              apiVersions: ["v1"],
              resources: ["pods/*", "services/*"],
            },
          ],
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": NS } },
        }),
      ],
    },
  );
  const deadline = Date.now() + 20_000;
  for (;;) {
    recorder.clearCalls();
    await admin.kube("POST", `/api/v1/namespaces/${NS}/pods/${ABSENT}/eviction`, {
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name: ABSENT, namespace: NS },
    });
    if (recorder.calls("sub").length > 0 || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const client = new KubeClient(
    stack.contexts.admin,
    kubeConfigFor(stack.contexts.admin, [stack.kubeconfig]),
  );
  const notices: string[] = [];
  discovery = await readDiscovery(client, notices);
  expect(notices).toEqual([]);
});

afterAll(async () => {
  await admin
    ?.kube(
      "DELETE",
      `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${CONFIG}`,
    )
    .catch(() => undefined);
  await admin?.kube("DELETE", `/api/v1/namespaces/${NS}`).catch(() => undefined);
  await recorder?.close();
});

const METHOD: Record<Exclude<AdmissionOperation, "CONNECT">, string> = {
  CREATE: "POST",
  UPDATE: "PUT",
  DELETE: "DELETE",
};

/** The path of `name` (or the collection) and its subresource, in this test's namespace. */
function pathOf(d: DiscoveryResource, subresource: string, name: string | undefined): string {
  const root = d.group === "" ? `/api/${d.version}` : `/apis/${d.group}/${d.version}`;
  const ns = d.namespaced ? `/namespaces/${NS}` : "";
  const named = name === undefined ? "" : `/${name}`;
  return `${root}${ns}/${d.resource}${named}${subresource ? `/${subresource}` : ""}`;
}

const requestOf = (d: DiscoveryResource, subresource: string, operation: AdmissionOperation) =>
  makeRequest({
    group: d.group,
    version: d.version,
    resource: d.resource,
    subresource,
    operation,
    namespace: d.namespaced ? NS : "",
    name: ABSENT,
    kind: { group: d.group, version: d.version, kind: d.kind },
    object: operation === "DELETE" ? null : { metadata: { name: ABSENT } },
  });

test("the router refuses exactly the operations discovery says a resource does not serve, with its status and message", async () => {
  const checked: string[] = [];
  const refused: string[] = [];
  const byCrd: string[] = [];
  const mismatches: string[] = [];
  for (const d of discovery)
    for (const sub of ["", ...(d.subresources ?? []).map((s) => s.name)])
      for (const op of ["CREATE", "UPDATE", "DELETE"] as const) {
        // Connect subresources are admitted as CONNECT whatever the method (the next test).
        if (!reachesAdmission(op, d, sub) && reachesAdmission("CONNECT", d, sub)) continue;
        const name = op === "CREATE" && sub === "" ? undefined : ABSENT;
        const path = `${pathOf(d, sub, name)}?dryRun=All`;
        const res = await admin.kube(METHOD[op], path, op === "DELETE" ? undefined : {});
        const predicted = unservedOperation(requestOf(d, sub, op), d);
        const label = `${op} ${d.group}/${d.version}/${d.resource}${sub ? `/${sub}` : ""}`;
        checked.push(label);
        const message = (JSON.parse(res.body) as { message?: string }).message;
        const byRouter =
          (res.status === METHOD_NOT_ALLOWED.status && message === METHOD_NOT_ALLOWED.message) ||
          (res.status === PATH_NOT_FOUND.status && message === PATH_NOT_FOUND.message);
        // A custom resource's status and scale subresources are served by the CRD handler, which
        // refuses other verbs with 405 in words of its own (NewMethodNotSupported).
        const byCrdHandler =
          res.status === METHOD_NOT_ALLOWED.status &&
          /^[a-z]+ is not supported on resources of kind "/.test(message ?? "");
        if (byRouter || byCrdHandler) refused.push(label);
        if (byCrdHandler) byCrd.push(label);
        const rejection = predicted?.rejection;
        if (
          byRouter || byCrdHandler
            ? rejection?.status !== res.status || rejection.message !== message
            : rejection !== undefined
        )
          mismatches.push(
            `${label}: apiserver ${res.status}, predicted ${predicted?.exclusion.code ?? "reaches admission"}`,
          );
      }
  expect(mismatches).toEqual([]);
  // Enough of both to mean something: every resource of the cluster, statuses refusing DELETE.
  expect(checked.length).toBeGreaterThan(300);
  expect(refused).toContain("DELETE /v1/pods/status");
  expect(refused).toContain("CREATE /v1/namespaces/status");
  expect(refused).toContain("UPDATE authentication.k8s.io/v1/tokenreviews");
  expect(refused.length).toBeGreaterThan(100);
  // The stack serves custom resources with a status subresource (the engines' CRDs).
  expect(byCrd.length).toBeGreaterThan(0);
});

test("connect subresources are admitted as CONNECT for every method they serve; an eviction as CREATE", async () => {
  const verbMethod: Record<string, string> = {
    create: "POST",
    get: "GET",
    update: "PUT",
    patch: "PATCH",
    delete: "DELETE",
  };
  const seen: Record<string, string[]> = {};
  for (const d of discovery.filter(
    (x) => x.group === "" && ["pods", "services"].includes(x.resource),
  ))
    for (const s of d.subresources ?? []) {
      const connects = reachesAdmission("CONNECT", d, s.name);
      // Of the others, an eviction: admitted as a CREATE. (A binding whose pod is missing is
      // refused before the hooks, by an in-tree plugin.)
      const methods = connects
        ? (s.verbs ?? []).flatMap((v) => verbMethod[v] ?? [])
        : s.name === "eviction"
          ? ["POST"]
          : [];
      for (const method of methods) {
        recorder.clearCalls();
        await admin.kube(
          method,
          pathOf(d, s.name, ABSENT),
          method === "GET" ? undefined : { metadata: { name: ABSENT } },
        );
        const ops = recorder.calls("sub").map((c) => c.request.operation);
        seen[`${method} ${d.resource}/${s.name}`] = ops;
        expect(ops, `${method} ${d.resource}/${s.name}`).toEqual([connects ? "CONNECT" : "CREATE"]);
      }
    }
  for (const sub of [
    "pods/exec",
    "pods/attach",
    "pods/portforward",
    "pods/proxy",
    "services/proxy",
  ])
    expect(seen[`POST ${sub}`], sub).toEqual(["CONNECT"]);
  expect(seen["POST pods/eviction"]).toEqual(["CREATE"]);
  expect(seen["PUT pods/proxy"]).toEqual(["CONNECT"]);
});
