/**
 * The chart's ClusterRole on the real apiserver is sufficient and minimal. The chart's own
 * ServiceAccount, ClusterRole and binding are created for real and the service account gets a
 * token (TokenRequest); with it the dashboard's read paths (the shared reader of admission state,
 * the backend checks' reads, the watch hub's watches, the metrics scrape) succeed with nothing
 * refused. Each permission is needed: without any one of them, the read paths fail for exactly
 * that one. Anything else — writes, secrets, impersonation (unless turned on), decisions — is
 * refused by the apiserver (SelfSubjectAccessReviews, and real requests).
 */
import { randomBytes } from "node:crypto";
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readStack, type StackInfo } from "../cluster/harness/stack";
import { KubeClient, kubeClientFor } from "@/server/kube/client";
import { canI, canIPath } from "@/server/kube/access";
import {
  readAdmissionObjects,
  readBackendState,
  readDiscovery,
  readNamespaces,
} from "@/server/kube/admission-state";
import { DECISIONS_URL } from "@/server/audit/access";
import { KubeApiError } from "@/lib/k8s/errors";
import { ADMISSION_RESOURCES, WEBHOOK_GROUP } from "@/lib/webhooks/resource-kinds";
import type { V1ValidatingWebhookConfiguration } from "@/lib/k8s/types";
import { renderChart, renderedObjects, type RenderedObject } from "./render";
import { createObject } from "./objects";
import { ensureHelm } from "../tools/helm/helm";

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

/** What the service account may read: [group, resource] with get/list/watch, plus /metrics. */
const READS: Array<[string, string]> = [
  ...ADMISSION_RESOURCES.map((r): [string, string] => [WEBHOOK_GROUP, r]),
  ["", "namespaces"],
  ["", "services"],
  ["", "pods"],
  ["discovery.k8s.io", "endpointslices"],
];
const READ_VERBS = ["get", "list", "watch"];
/** The policy engines' groups: every kind of each is read (Gatekeeper's Constraint kinds are the cluster's own). */
const ENGINE_GROUPS = [
  "templates.gatekeeper.sh",
  "constraints.gatekeeper.sh",
  "kyverno.io",
  "policies.kyverno.io",
  "policies.kubewarden.io",
];
/** The engine collection the test stack serves (it installs Gatekeeper's CRDs). */
const ENGINE_READ: [string, string] = ["templates.gatekeeper.sh", "constrainttemplates"];
/** Workloads whose pod templates stand in for a backend's pods where none runs: get and list. */
const WORKLOAD_READS: Array<[string, string]> = [
  ["apps", "deployments"],
  ["apps", "statefulsets"],
  ["apps", "daemonsets"],
  ["apps", "replicasets"],
];
const WORKLOAD_VERBS = ["get", "list"];

const id = randomBytes(3).toString("hex");
const namespace = `portcullis-rbac-${id}`;
const hookName = `portcullis-rbac-${id}`;
let stack: StackInfo;
let admin: KubeClient;
let chart: RenderedObject[];
let role: RenderedObject & { rules: Rule[] };
/** The test's webhook configuration, whose backend Service the backend checks read. */
let hook: V1ValidatingWebhookConfiguration;
const clusterScoped: Array<{ path: string }> = [];

function tokenClient(name: string, token: string): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: stack.server, caFile: stack.caFile, skipTLSVerify: false }],
    users: [{ name, token }],
    contexts: [{ name, cluster: "c", user: name }],
    currentContext: name,
  });
  return new KubeClient(name, kc);
}

async function create(o: RenderedObject): Promise<void> {
  await createObject(admin, o, { dryRun: false });
  if (!o.metadata.namespace) {
    const plural = o.kind === "ClusterRole" ? "clusterroles" : "clusterrolebindings";
    clusterScoped.push({
      path: `/apis/rbac.authorization.k8s.io/v1/${plural}/${o.metadata.name}`,
    });
  }
}

/** A token for a service account of the test namespace (created when missing). */
async function serviceAccountToken(name: string): Promise<string> {
  await admin
    .request({
      method: "POST",
      path: `/api/v1/namespaces/${namespace}/serviceaccounts`,
      body: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name } },
    })
    .catch((e: unknown) => {
      if (!(e instanceof KubeApiError && e.status === 409)) throw e;
    });
  const r = await admin.request<{ status: { token: string } }>({
    method: "POST",
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    body: {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: { expirationSeconds: 600 },
    },
  });
  return r.status.token;
}

/** Binds the service account `sa` to a new ClusterRole holding `rules`. */
async function bindRules(sa: string, rules: Rule[]): Promise<void> {
  const name = `portcullis-rbac-${id}-${sa}`;
  await create({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name },
    rules,
  });
  await create({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
    subjects: [{ kind: "ServiceAccount", name: sa, namespace }],
  });
}

/** Waits until the apiserver's authorizer has seen a new binding (its cache follows a watch). */
async function untilAllowed(
  client: KubeClient,
  check: () => Promise<boolean>,
  what: string,
): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${client.context}: ${what} never became allowed`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * The dashboard's own read paths as `client`: discovery and every admission kind (the shared
 * reader, server/kube/admission-state.ts), namespaces, the backend checks' services, endpoint
 * slices and pods of the test hook, a watch of every collection the watch hub may hold, and the
 * metrics scrape. Returns what failed or was refused, in words (empty: everything was read).
 */
async function readPaths(client: KubeClient): Promise<string[]> {
  const notices: string[] = [];
  const failures: string[] = [];
  const attempt = async (what: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (e) {
      failures.push(`${what}: ${messageOf(e)}`);
    }
  };
  let discovery: Awaited<ReturnType<typeof readDiscovery>> = [];
  await attempt("discovery", async () => {
    discovery = await readDiscovery(client, notices);
  });
  await attempt("admission objects", async () => {
    const lists = await readAdmissionObjects(client, discovery, notices);
    if (!lists.validatingWebhookConfigurations.some((c) => c.metadata?.name === hookName))
      failures.push("validatingwebhookconfigurations: the test hook was not listed");
  });
  await attempt("namespaces", async () => {
    const ns = await readNamespaces(client);
    if (!(namespace in ns)) failures.push(`namespaces: ${namespace} not listed`);
  });
  await attempt("backends", async () => {
    const b = await readBackendState(client, [hook], notices);
    if (b.services && !b.services.some((s) => s.metadata?.name === "backend"))
      failures.push("services: the hook's service was not read");
  });
  await attempt("metrics", async () => {
    const text = await client.requestText({ path: "/metrics" });
    if (!text.includes("apiserver_request_total")) failures.push("metrics: no apiserver metrics");
  });
  await attempt("engine policies", async () => {
    await client.request({ path: `/apis/${ENGINE_READ[0]}/v1/${ENGINE_READ[1]}` });
  });
  await Promise.all(
    [...READS, ENGINE_READ].map(([group, resource]) =>
      attempt(`watch ${resource}`, () =>
        client.watch(
          {
            path: `${group ? `/apis/${group}/v1` : "/api/v1"}/${resource}`,
            query: { timeoutSeconds: 1 },
          },
          () => undefined,
        ),
      ),
    ),
  );
  return [...failures, ...notices];
}

beforeAll(async () => {
  stack = readStack();
  process.env.KUBECONFIG = stack.kubeconfig;
  // The legacy admission group is a test fixture of other suites, not something the chart grants.
  delete process.env.PORTCULLIS_LEGACY_ADMISSION_GROUP;
  admin = kubeClientFor(stack.contexts.admin);
  await ensureHelm();
  await admin.request({
    method: "POST",
    path: "/api/v1/namespaces",
    body: { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } },
  });
  await admin.request({
    method: "POST",
    path: `/api/v1/namespaces/${namespace}/services`,
    body: {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "backend" },
      spec: { selector: { app: "backend" }, ports: [{ port: 443, targetPort: 8443 }] },
    },
  });
  hook = await admin.request<V1ValidatingWebhookConfiguration>({
    method: "POST",
    path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
    body: {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: hookName },
      webhooks: [
        {
          name: "check.portcullis.test",
          clientConfig: { service: { namespace, name: "backend", path: "/validate" } },
          // Matches nothing any test creates.
          rules: [
            {
              operations: ["CREATE"],
              apiGroups: ["portcullis.test"],
              apiVersions: ["v1"],
              resources: ["nothing"],
            },
          ],
          failurePolicy: "Ignore",
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
        },
      ],
    },
  });
  chart = renderedObjects(await renderChart({ release: `rbac-${id}`, namespace }));
  const [r] = chart.filter(
    (o) => o.kind === "ClusterRole" && !o.metadata.name.endsWith("-decisions-reader"),
  );
  role = r as typeof role;
  for (const o of chart)
    if (["ServiceAccount", "ClusterRole", "ClusterRoleBinding"].includes(o.kind)) await create(o);
}, 1_800_000);

afterAll(async () => {
  if (!admin) return;
  for (const o of clusterScoped)
    await admin.request({ method: "DELETE", path: o.path }).catch(() => undefined);
  await admin
    .request({
      method: "DELETE",
      path: `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${hookName}`,
    })
    .catch(() => undefined);
  await admin.request({ method: "DELETE", path: `/api/v1/namespaces/${namespace}` });
});

/**
 * The service account of a rendering, with a token, once the apiserver authorizes its binding
 * (seen when `granted`, something its role grants, is allowed).
 */
async function chartServiceAccount(
  objects: RenderedObject[] = chart,
  granted = { group: "", resource: "namespaces", verb: "list" },
): Promise<KubeClient> {
  const sa = objects.find((o) => o.kind === "ServiceAccount")?.metadata.name ?? "";
  const client = tokenClient(sa, await serviceAccountToken(sa));
  await untilAllowed(client, () => canI(client, granted), `${granted.verb} ${granted.resource}`);
  return client;
}

describe("the chart's ClusterRole for the dashboard's service account", () => {
  it("grants exactly reads of admission configuration, namespaces, services, endpoint slices, pods, workloads, the engines' policies and /metrics", () => {
    const granted = role.rules
      .flatMap((r) =>
        r.nonResourceURLs
          ? r.nonResourceURLs.flatMap((u) => r.verbs.map((v) => `${u} ${v}`))
          : (r.apiGroups ?? []).flatMap((g) =>
              (r.resources ?? []).flatMap((res) => r.verbs.map((v) => `${g}/${res} ${v}`)),
            ),
      )
      .sort();
    const expected = [
      ...READS.flatMap(([g, res]) => READ_VERBS.map((v) => `${g}/${res} ${v}`)),
      ...WORKLOAD_READS.flatMap(([g, res]) => WORKLOAD_VERBS.map((v) => `${g}/${res} ${v}`)),
      ...ENGINE_GROUPS.flatMap((g) => READ_VERBS.map((v) => `${g}/* ${v}`)),
      "/metrics get",
    ].sort();
    expect(granted).toEqual(expected);
  });

  it("is sufficient: as the service account, every read path of the dashboard succeeds", async () => {
    const client = await chartServiceAccount();
    expect(await readPaths(client)).toEqual([]);
  });

  it("is minimal: without any one of its permissions the read paths fail for exactly that one", async () => {
    const removals = [
      ...READS.map(([, resource]) => resource),
      ...WORKLOAD_READS.map(([, resource]) => resource),
      // The engines' rule as a whole (its resources are `*`): the collection the stack serves.
      ENGINE_READ[1],
      "/metrics",
    ];
    // Each removal has a service account and a role of its own, so they are checked side by
    // side (the watches' 1 s timeouts made one after another about 18 s).
    const check = async (i: number, removed: string): Promise<string[]> => {
      const rules: Rule[] = role.rules
        .map((r) =>
          r.nonResourceURLs
            ? { ...r, nonResourceURLs: r.nonResourceURLs.filter((u) => u !== removed) }
            : removed === ENGINE_READ[1] && r.apiGroups?.includes(ENGINE_READ[0])
              ? { ...r, resources: [] }
              : { ...r, resources: (r.resources ?? []).filter((res) => res !== removed) },
        )
        .filter((r) => (r.nonResourceURLs ?? r.resources ?? []).length > 0);
      const sa = `without-${i}`;
      await bindRules(sa, rules);
      const client = tokenClient(sa, await serviceAccountToken(sa));
      // Something the reduced role still grants is visible once the binding is.
      const kept = removed === "/metrics" ? "namespaces" : "/metrics";
      await untilAllowed(
        client,
        () =>
          kept === "/metrics"
            ? canIPath(client, { path: "/metrics", verb: "get" })
            : canI(client, { group: "", resource: kept, verb: "list" }),
        kept,
      );
      return readPaths(client);
    };
    const results = await Promise.all(removals.map((removed, i) => check(i, removed)));
    for (const [i, removed] of removals.entries()) {
      const failures = results[i] ?? [];
      expect(failures.length, `without ${removed}`).toBeGreaterThan(0);
      for (const f of failures) expect(f, `without ${removed}`).toContain(removed);
    }
  });

  it("writes nothing and reads nothing else: the apiserver refuses it", async () => {
    const client = await chartServiceAccount();
    for (const [group, resource] of [...READS, ...WORKLOAD_READS, ENGINE_READ])
      for (const verb of ["create", "update", "patch", "delete", "deletecollection"])
        expect(await canI(client, { group, resource, verb }), `${verb} ${resource}`).toBe(false);
    for (const [group, resource, verb] of [
      ["", "secrets", "get"],
      ["", "secrets", "list"],
      ["", "configmaps", "list"],
      ["", "serviceaccounts", "list"],
      ["", "nodes", "list"],
      ["", "endpoints", "list"],
      ["", "users", "impersonate"],
      ["", "groups", "impersonate"],
      ["", "serviceaccounts", "impersonate"],
      ["apps", "deployments", "watch"],
      ["apps", "controllerrevisions", "list"],
      ["apiextensions.k8s.io", "customresourcedefinitions", "list"],
      ["rbac.authorization.k8s.io", "clusterrolebindings", "create"],
      ["rbac.authorization.k8s.io", "clusterroles", "escalate"],
      ["rbac.authorization.k8s.io", "clusterroles", "bind"],
    ] as const)
      expect(await canI(client, { group, resource, verb }), `${verb} ${resource}`).toBe(false);
    expect(await canIPath(client, { path: DECISIONS_URL, verb: "get" })).toBe(false);
    expect(await canIPath(client, { path: "/metrics", verb: "get" })).toBe(true);

    // Real requests, not only reviews: a write (even a dry run) and a secret read are 403.
    const write = client.request({
      method: "POST",
      path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
      query: { dryRun: "All" },
      body: {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: `${hookName}-x` },
      },
    });
    await expect(write).rejects.toMatchObject({ status: 403 });
    await expect(
      client.request({ path: `/api/v1/namespaces/${namespace}/secrets` }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      client.request({
        path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
        headers: { "Impersonate-User": "viewer" },
      }),
    ).rejects.toMatchObject({ status: 403 });
  });
});

describe("impersonation mode", () => {
  it("lets the service account impersonate users, groups and service accounts, and nothing more", async () => {
    const objects = renderedObjects(
      await renderChart({
        release: `imp-${id}`,
        namespace,
        set: ["impersonation.enabled=true"],
      }),
    );
    for (const o of objects)
      if (["ServiceAccount", "ClusterRole", "ClusterRoleBinding"].includes(o.kind)) await create(o);
    const client = await chartServiceAccount(objects, {
      group: "",
      resource: "users",
      verb: "impersonate",
    });
    expect(await canI(client, { group: "", resource: "groups", verb: "impersonate" })).toBe(true);
    // A service account's token signs in as that service account.
    expect(
      await canI(client, { group: "", resource: "serviceaccounts", verb: "impersonate" }),
    ).toBe(true);
    expect(
      await canI(client, {
        group: "authentication.k8s.io",
        resource: "userextras",
        verb: "impersonate",
      }),
    ).toBe(false);
    expect(await readPaths(client)).toEqual([]);
    // Acting as the viewer, it reads what the viewer may; the viewer's RBAC refuses secrets.
    const asViewer = { "Impersonate-User": "viewer", "Impersonate-Group": "portcullis:viewers" };
    const list = await client.request<{ items: unknown[] }>({
      path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
      headers: asViewer,
    });
    expect(list.items.length).toBeGreaterThan(0);
    await expect(
      client.request({ path: `/api/v1/namespaces/${namespace}/secrets`, headers: asViewer }),
    ).rejects.toMatchObject({ status: 403 });
    // Users, groups and service accounts only: a request that also names the user's uid is refused.
    expect(
      await canI(client, { group: "authentication.k8s.io", resource: "uids", verb: "impersonate" }),
    ).toBe(false);
    await expect(
      client.request({
        path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
        headers: { ...asViewer, "Impersonate-Uid": "viewer-uid" },
      }),
    ).rejects.toMatchObject({ status: 403 });
  });
});

describe("break-glass's revert on time", () => {
  it("lets the service account update webhook configurations and bindings and delete grants, and nothing more", async () => {
    const objects = renderedObjects(
      await renderChart({
        release: `bg-${id}`,
        namespace,
        set: ["breakGlass.revertOnExpiry=true"],
      }),
    );
    for (const o of objects)
      if (["ServiceAccount", "ClusterRole", "ClusterRoleBinding"].includes(o.kind)) await create(o);
    const client = await chartServiceAccount(objects, {
      group: WEBHOOK_GROUP,
      resource: "validatingwebhookconfigurations",
      verb: "update",
    });
    for (const resource of [
      "mutatingwebhookconfigurations",
      "validatingadmissionpolicybindings",
      "mutatingadmissionpolicybindings",
    ]) {
      expect(await canI(client, { group: WEBHOOK_GROUP, resource, verb: "update" }), resource).toBe(
        true,
      );
    }
    for (const resource of ["clusterroles", "clusterrolebindings"]) {
      const rbac = "rbac.authorization.k8s.io";
      expect(await canI(client, { group: rbac, resource, verb: "delete" }), resource).toBe(true);
      expect(await canI(client, { group: rbac, resource, verb: "create" }), resource).toBe(false);
    }
    // The policies themselves, creating and deleting configurations: still refused.
    for (const [resource, verb] of [
      ["validatingadmissionpolicies", "update"],
      ["validatingwebhookconfigurations", "create"],
      ["validatingwebhookconfigurations", "delete"],
      ["validatingwebhookconfigurations", "patch"],
    ] as const) {
      expect(
        await canI(client, { group: WEBHOOK_GROUP, resource, verb }),
        `${verb} ${resource}`,
      ).toBe(false);
    }
    expect(await readPaths(client)).toEqual([]);
  });

  it("is off by default: the chart's role writes nothing", () => {
    const role = chart.find(
      (o) => o.kind === "ClusterRole" && !o.metadata.name.endsWith("-decisions-reader"),
    ) as (RenderedObject & { rules: Rule[] }) | undefined;
    expect(role?.rules.flatMap((r) => r.verbs).filter((v) => !READ_VERBS.includes(v))).toEqual([]);
  });
});

describe("the decisions reader role", () => {
  it("grants exactly the get the decisions routes authorize with", async () => {
    const reader = chart.find((o) => o.metadata.name.endsWith("-decisions-reader")) as
      (RenderedObject & { rules: Rule[] }) | undefined;
    expect(reader?.rules).toEqual([{ nonResourceURLs: [DECISIONS_URL], verbs: ["get"] }]);
    await create({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: `portcullis-rbac-${id}-reader` },
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: "ClusterRole",
        name: reader?.metadata.name ?? "",
      },
      subjects: [{ kind: "ServiceAccount", name: "reader", namespace }],
    });
    const client = tokenClient("reader", await serviceAccountToken("reader"));
    await untilAllowed(
      client,
      () => canIPath(client, { path: DECISIONS_URL, verb: "get" }),
      `get ${DECISIONS_URL}`,
    );
    expect(await canI(client, { group: "", resource: "namespaces", verb: "list" })).toBe(false);
  });
});
