/**
 * The pod labels behind a webhook, read from the real apiserver: a fail-closed hook on pods in its
 * own backend's namespace whose objectSelector exempts pods labelled with an opt-out label that
 * only the backend Deployment's pod template carries (not the Service's selector). The apiserver
 * exempts pods with the template's labels and calls the hook for pods with only the selector's;
 * the dependency graph agrees when given the labels readBackendPods reads — the template's (no
 * pod runs), then a pod's — and with only the selector it calls the hook self-intercepting. A
 * viewer, who may not list workloads, falls back to the selector and is told so.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readStack } from "../../cluster/harness/stack";
import { adminKube, type AdminKube } from "../../test/oracle/admin-kube";
import { kubeClientFor, type KubeClient } from "./client";
import { readAdmissionState } from "./admission-state";
import { METADATA_ONLY, readBackendPods } from "./backend-pods";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { dependencyGraph, type DependencyInput } from "@/lib/admission/lint/deadlock";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type { V1Service } from "@/lib/k8s/types";
import { backendTargets, type PodLabelTarget } from "@/lib/namespaces/backend-pods";
import type { BackendPodsData } from "@/lib/api/webhooks";

const id = `bp${Date.now().toString(36)}`;
const NS = `${id}-hooks`;
const CONFIG = `${id}-self`;
const HOOK = `self.${id}.example.com`;
const SKIP = "webhook.example.com/skip";
const SELECTOR = { app: `${id}-hook` };
const TEMPLATE = { ...SELECTOR, [SKIP]: "true", "app.kubernetes.io/part-of": id };
const VWC = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

let kube: AdminKube;
let admin: KubeClient;
let viewer: KubeClient;

const pod = (name: string, labels: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: NS, labels },
  spec: { containers: [{ name: "hook", image: "portcullis.invalid/hook:1" }] },
});

async function until<T>(what: string, fn: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  const stack = readStack();
  process.env.KUBECONFIG = stack.kubeconfig;
  kube = adminKube(stack);
  admin = kubeClientFor(stack.contexts.admin);
  viewer = kubeClientFor(stack.contexts.viewer);
  await kube.kubeOk("POST", "/api/v1/namespaces", { metadata: { name: NS } });
  await kube.kubeOk("POST", `/api/v1/namespaces/${NS}/services`, {
    metadata: { name: "hook" },
    spec: { selector: SELECTOR, ports: [{ port: 443, targetPort: 8443 }] },
  });
  // No replicas: the template alone carries the labels (and nothing has to run).
  await kube.kubeOk("POST", `/apis/apps/v1/namespaces/${NS}/deployments`, {
    metadata: { name: "hook" },
    spec: {
      replicas: 0,
      selector: { matchLabels: SELECTOR },
      template: {
        metadata: { labels: TEMPLATE },
        spec: { containers: [{ name: "hook", image: "portcullis.invalid/hook:1" }] },
      },
    },
  });
  await kube.kubeOk("POST", VWC, {
    metadata: { name: CONFIG },
    webhooks: [
      {
        name: HOOK,
        clientConfig: { service: { namespace: NS, name: "hook", path: "/validate" } },
        rules: [
          { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] },
        ],
        // Only this test's namespace: fail-closed, and its Service has no endpoints.
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": NS } },
        objectSelector: { matchExpressions: [{ key: SKIP, operator: "NotIn", values: ["true"] }] },
        failurePolicy: "Fail",
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
      },
    ],
  });
  // Pods are admitted only once the namespace's default ServiceAccount exists.
  await until("the default ServiceAccount", async () => {
    const r = await kube.kube("GET", `/api/v1/namespaces/${NS}/serviceaccounts/default`);
    return r.status === 200 ? true : undefined;
  });
});

afterAll(async () => {
  await kube?.kube("DELETE", `${VWC}/${CONFIG}`).catch(() => undefined);
  await kube?.kube("DELETE", `/api/v1/namespaces/${NS}`).catch(() => undefined);
});

/** The cluster's admission state and this test's Service, and the targets the page would read. */
async function state(): Promise<{
  snapshot: AdmissionSnapshot;
  services: V1Service[];
  targets: PodLabelTarget[];
}> {
  const { snapshot } = await readAdmissionState(admin);
  const services = [
    await admin.request<V1Service>({ path: `/api/v1/namespaces/${NS}/services/hook` }),
  ];
  return { snapshot, services, targets: backendTargets(snapshot, services) };
}

/** This test's hook in the graph of `input`: its backend's label source and self-interception. */
function judge(input: DependencyInput) {
  const graph = dependencyGraph(input, compileSnapshot(input.snapshot));
  const h = graph.hooks.find((x) => x.hook.id.configuration === CONFIG);
  if (!h) throw new Error(`no hook of ${CONFIG} in the graph`);
  return {
    source: h.backend?.source,
    selfIntercepted: graph.selfLoops.includes(h.key),
    interceptsItself: graph.edges.some((e) => e.from === h.key && e.to === h.key),
  };
}

describe("a hook whose opt-out label only its backend's pod template carries", () => {
  it("the apiserver exempts pods with the template's labels and calls the hook for pods with only the selector's", async () => {
    // Until the apiserver has the configuration: the hook (no endpoints) fails the request.
    const refused = await until("the hook to be called", async () => {
      const r = await kube.kube(
        "POST",
        `/api/v1/namespaces/${NS}/pods?dryRun=All`,
        pod("selector-only", SELECTOR),
      );
      return r.status >= 400 ? r : undefined;
    });
    expect((JSON.parse(refused.body) as { message?: string }).message).toContain(
      `failed calling webhook "${HOOK}"`,
    );
    const admitted = await kube.kube(
      "POST",
      `/api/v1/namespaces/${NS}/pods?dryRun=All`,
      pod("templated", TEMPLATE),
    );
    expect(admitted.status, admitted.body).toBe(201);
  });

  it("with the template's labels the backend is not self-intercepted; with only the selector it would be", async () => {
    const { snapshot, services, targets } = await state();
    expect(targets).toEqual([{ namespace: NS, selector: `app=${id}-hook`, services: ["hook"] }]);
    const read = await readBackendPods(admin, targets);
    expect(read.pods).toEqual([]);
    expect(read.forbidden).toEqual({});
    expect(read.notices).toEqual([]);
    // The Deployment, which stands for the ReplicaSets its controller makes from its template.
    expect(read.workloads.map((w) => `${w.kind}/${w.metadata.name}`)).toEqual(["Deployment/hook"]);
    for (const w of read.workloads) expect(w.spec.template.metadata.labels).toMatchObject(TEMPLATE);

    const withLabels = { snapshot, services, pods: read.pods, workloads: read.workloads };
    expect(judge(withLabels)).toEqual({
      source: "workloads",
      selfIntercepted: false,
      interceptsItself: false,
    });
    expect(judge({ snapshot, services })).toEqual({
      source: "service-selector",
      selfIntercepted: true,
      interceptsItself: true,
    });
  });

  it("a Deployment stands for its ReplicaSets: an older revision's labels are not judged", async () => {
    const deployment = `/apis/apps/v1/namespaces/${NS}/deployments/hook`;
    type Deployment = {
      metadata: { generation: number };
      status?: { observedGeneration?: number };
    };
    /** Sets the template's labels and waits until the controller has made its ReplicaSets. */
    const roll = async (labels: Record<string, string>, replicaSets: number) => {
      // A strategic merge would keep the labels a revision drops: replace the map instead.
      await admin.request({
        method: "PATCH",
        path: deployment,
        contentType: "application/json-patch+json",
        body: [{ op: "replace", path: "/spec/template/metadata/labels", value: labels }],
      });
      await until(`${replicaSets} ReplicaSets of the Deployment`, async () => {
        const d = JSON.parse((await kube.kube("GET", deployment)).body) as Deployment;
        if (d.status?.observedGeneration !== d.metadata.generation) return undefined;
        const list = JSON.parse(
          (await kube.kube("GET", `/apis/apps/v1/namespaces/${NS}/replicasets`)).body,
        ) as { items: unknown[] };
        return list.items.length === replicaSets ? true : undefined;
      });
    };
    // A revision without the opt-out label, then back to the template with it: the first
    // revision's ReplicaSet is the Deployment's again, the second's stays, scaled to zero.
    const { [SKIP]: _skip, ...without } = TEMPLATE;
    await roll({ ...without, rev: "2" }, 2);
    await roll(TEMPLATE, 2);
    const { snapshot, services, targets } = await state();
    const read = await readBackendPods(admin, targets);
    expect(read.workloads.map((w) => `${w.kind}/${w.metadata.name}`)).toEqual(["Deployment/hook"]);
    expect(judge({ snapshot, services, pods: read.pods, workloads: read.workloads })).toEqual({
      source: "workloads",
      selfIntercepted: false,
      interceptsItself: false,
    });
  });

  it("a viewer, who may not list workloads, falls back to the selector and is told so", async () => {
    const { snapshot, services, targets } = await state();
    const read: BackendPodsData = await readBackendPods(viewer, targets);
    expect(read.workloads).toEqual([]);
    expect(read.forbidden).toEqual({
      [NS]: ["deployments", "statefulsets", "daemonsets", "replicasets"],
    });
    expect(read.notices.join("\n")).toContain(`cannot list deployments in ${NS} (403 Forbidden)`);
    expect(judge({ snapshot, services, pods: read.pods, workloads: read.workloads })).toEqual({
      source: "service-selector",
      selfIntercepted: true,
      interceptsItself: true,
    });
  });

  it("a pod the Service selects gives its labels first, metadata only, and no workload is read", async () => {
    // Admitted: it carries the opt-out label (no kubelet runs it; it only has to exist).
    await kube.kubeOk("POST", `/api/v1/namespaces/${NS}/pods`, pod("running", TEMPLATE));
    const list = await viewer.request<{ kind?: string }>({
      path: `/api/v1/namespaces/${NS}/pods`,
      accept: METADATA_ONLY,
    });
    expect(list.kind).toBe("PartialObjectMetadataList");
    const { snapshot, services, targets } = await state();
    // The viewer may list pods: the workloads it may not list are not needed, so not read.
    const read = await readBackendPods(viewer, targets);
    expect(read.pods).toEqual([{ metadata: { name: "running", namespace: NS, labels: TEMPLATE } }]);
    expect(read.workloads).toEqual([]);
    expect(read.forbidden).toEqual({});
    expect(read.notices).toEqual([]);
    expect(judge({ snapshot, services, pods: read.pods, workloads: read.workloads })).toEqual({
      source: "pods",
      selfIntercepted: false,
      interceptsItself: false,
    });
  });
});
