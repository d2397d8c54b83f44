/**
 * The virtual auth resources by minor: a webhook whose rules name tokenreviews and
 * subjectaccessreviews is called for them on 1.35 and 1.36 and never on 1.37
 * (`ExcludeAdmissionWebhookVirtualResources`, beta and on from 1.37). The prediction, made from
 * the cluster's state as the dashboard reads it (its minor from /version), must say which; run on
 * each minor by `npm run test:versions`.
 */
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { readStack, stackMinor, type StackInfo } from "../../../cluster/harness/stack";
import { startWebhookServer, type WebhookServer } from "../../../cluster/harness/webhook-server";
import { adminKube, type AdminKube } from "../../../test/oracle/admin-kube";
import { KubeClient } from "@/server/kube/client";
import { kubeConfigFor } from "@/server/kube/config";
import { readAdmissionState } from "@/server/kube/admission-state";
import { compileSnapshot, type CompiledSnapshot } from "@/lib/admission/matching/compile";
import { predictCompiled } from "@/lib/admission/prediction/predict";
import { behaviourOf } from "@/lib/admission/model/kubernetes-minor";
import { makeRequest } from "@/lib/admission/model/request";

const id = `vr${Date.now().toString(36)}`;
const SUFFIX = `.${id}.portcullis.test`;
const NS = `${id}-ns`;
const CONFIG = `${id}-virtual`;

/** Each virtual resource the hook names: its group, resource, kind and a body to create. */
const REVIEWS = [
  {
    short: "tr",
    group: "authentication.k8s.io",
    resource: "tokenreviews",
    kind: "TokenReview",
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: "x" } },
  },
  {
    short: "sar",
    group: "authorization.k8s.io",
    resource: "subjectaccessreviews",
    kind: "SubjectAccessReview",
    body: {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      spec: { user: "nobody", resourceAttributes: { verb: "get", resource: "pods" } },
    },
  },
] as const;

let stack: StackInfo;
let admin: AdminKube;
let hooks: WebhookServer;
let compiled: CompiledSnapshot;

beforeAll(async () => {
  stack = readStack();
  admin = adminKube(stack);
  hooks = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
  await admin.kubeOk("POST", "/api/v1/namespaces", { metadata: { name: NS } });
  await admin.kubeOk(
    "POST",
    "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
    {
      metadata: { name: CONFIG },
      webhooks: [
        ...REVIEWS.map((r) =>
          hooks.webhook(`${r.short}${SUFFIX}`, r.short, {
            failurePolicy: "Ignore",
            rules: [
              {
                operations: ["CREATE"],
                apiGroups: [r.group],
                apiVersions: ["*"],
                resources: [r.resource],
              },
            ],
          }),
        ),
        // Called once the apiserver holds this configuration: the readiness probe.
        hooks.webhook(`probe${SUFFIX}`, "probe", {
          failurePolicy: "Ignore",
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": NS } },
          rules: [
            {
              operations: ["CREATE"],
              apiGroups: [""],
              apiVersions: ["v1"],
              resources: ["configmaps"],
            },
          ],
        }),
      ],
    },
  );
  for (const h of ["probe", ...REVIEWS.map((r) => r.short)]) hooks.program(h, { type: "allow" });
  await vi.waitFor(
    async () => {
      await admin.kube("POST", `/api/v1/namespaces/${NS}/configmaps?dryRun=All`, {
        metadata: { name: "probe" },
      });
      expect(hooks.calls("probe").length).toBeGreaterThan(0);
    },
    { timeout: 30_000, interval: 200 },
  );
  const client = new KubeClient(
    stack.contexts.admin,
    kubeConfigFor(stack.contexts.admin, [stack.kubeconfig]),
  );
  compiled = compileSnapshot((await readAdmissionState(client)).snapshot);
}, 120_000);

afterAll(async () => {
  await admin?.kube(
    "DELETE",
    `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${CONFIG}`,
  );
  await admin?.kube("DELETE", `/api/v1/namespaces/${NS}`);
  await hooks?.close();
});

test.each(REVIEWS)(
  "a $kind reaches a webhook exactly where the prediction for the cluster's minor says",
  async (r) => {
    expect(compiled.kubernetes).toMatchObject({ minor: stackMinor(), source: "cluster" });
    const before = hooks.calls(r.short).length;
    const res = await admin.kube("POST", `/apis/${r.group}/v1/${r.resource}`, r.body);
    expect(res.status, res.body).toBe(201);
    // A validating webhook is called before the answer: the call is recorded by now.
    const called = hooks.calls(r.short).length > before;

    const p = predictCompiled(
      makeRequest({
        group: r.group,
        resource: r.resource,
        operation: "CREATE",
        kind: { kind: r.kind },
        object: r.body,
      }),
      compiled,
    );
    const predicted = p.calls.some((c) => c.hook.name === `${r.short}${SUFFIX}`);
    expect(predicted).toBe(called);
    // And the minor's own rule, as lib/admission/model/kubernetes-minor.ts reads its sources.
    expect(called).toBe(!behaviourOf(stackMinor()).webhooksSkipVirtualResources);
  },
);
