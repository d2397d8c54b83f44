/**
 * PodSecurity with the plugin's own configuration, beside the real apiserver: the local control
 * plane's AdmissionConfiguration sets defaults and exempts a namespace, a user and a RuntimeClass
 * (cluster/admission-config/pod-security.ts). Pods and workloads created (dry run) where the
 * outcome depends on that configuration — a privileged pod in a restricted namespace as the
 * exempt user, with the exempt RuntimeClass, in the exempt namespace; a namespace that is exempt
 * but labelled — must get exactly the apiserver's answer (status, message, PodSecurity
 * warnings) from the verdict given the configuration read from the same file; the verdict
 * without it must differ where the exemption decides.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, test } from "vitest";
import { readStack, type StackInfo } from "../../../cluster/harness/stack";
import { httpsRequest } from "../../../cluster/https-json";
import { POD_SECURITY_EXEMPT } from "../../../cluster/admission-config/pod-security";
import { adminKube, type AdminKube } from "../../../test/oracle/admin-kube";
import { readAdmissionConfig } from "@/server/kube/admission-config";
import { makeRequest, type RequestUserInfo } from "@/lib/admission/model/request";
import type { PodSecurityConfig } from "@/lib/admission/model/admission-configuration";
import type { JsonObject } from "@/lib/admission/validate/json";
import { podSecurityVerdict, sameMessage } from "./admission";

const id = `psc${Date.now().toString(36)}`;
const RESTRICTED = `${id}-restricted`;
const UNLABELLED = `${id}-plain`;
const EXEMPT_NS = POD_SECURITY_EXEMPT.namespace;
const RESTRICTED_LABELS = { "pod-security.kubernetes.io/enforce": "restricted" };

let stack: StackInfo;
let admin: AdminKube;
let ca: Buffer;
let config: PodSecurityConfig;
let createdExemptNs = false;

const ADMIN: RequestUserInfo = {
  username: "admin",
  groups: ["system:masters", "system:authenticated"],
};
const EXEMPT_USER: RequestUserInfo = {
  username: POD_SECURITY_EXEMPT.username,
  groups: ["system:masters", "system:authenticated"],
};

/** A request as `user` (the admin impersonates the exempt user, keeping system:masters). */
function send(method: string, path: string, body: unknown, user: RequestUserInfo) {
  const headers: Record<string, string> =
    user.username === "admin"
      ? {}
      : { "Impersonate-User": user.username, "Impersonate-Group": "system:masters" };
  return httpsRequest(`${stack.server}${path}`, {
    method,
    body,
    ca,
    token: stack.tokens.admin,
    headers,
  });
}

function warningsOf(headers: Record<string, string | string[] | undefined>): string[] {
  const raw = headers["warning"];
  const all = Array.isArray(raw) ? raw.join(", ") : (raw ?? "");
  return [...all.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)]
    .map((m) => (m[1] as string).replace(/\\(.)/g, "$1"))
    .filter((w) => w.includes("PodSecurity") || w.includes("exempt from Pod Security"));
}

const privilegedPod = (name: string, ns: string, runtimeClassName?: string): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: ns },
  spec: {
    ...(runtimeClassName ? { runtimeClassName } : {}),
    containers: [
      { name: "c", image: "registry.k8s.io/pause", securityContext: { privileged: true } },
    ],
  },
});

async function labelsOf(ns: string): Promise<Record<string, string>> {
  const o = await admin.kubeOk("GET", `/api/v1/namespaces/${ns}`);
  return ((o.metadata as { labels?: Record<string, string> }).labels ?? {}) as Record<
    string,
    string
  >;
}

/** Until the namespace's default ServiceAccount exists (the ServiceAccount plugin needs it). */
async function serviceAccountReady(ns: string): Promise<void> {
  await expect
    .poll(
      async () =>
        (await admin.kube("GET", `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status,
      {
        timeout: 30_000,
      },
    )
    .toBe(200);
}

beforeAll(async () => {
  stack = readStack();
  admin = adminKube(stack);
  ca = readFileSync(stack.caFile);
  config = readAdmissionConfig(stack.admissionConfigFile).podSecurity;
  await admin.kubeOk("POST", "/api/v1/namespaces", {
    metadata: { name: RESTRICTED, labels: RESTRICTED_LABELS },
  });
  await admin.kubeOk("POST", "/api/v1/namespaces", { metadata: { name: UNLABELLED } });
  const ex = await admin.kube("POST", "/api/v1/namespaces", {
    metadata: { name: EXEMPT_NS, labels: RESTRICTED_LABELS },
  });
  if (ex.status !== 201 && ex.status !== 409)
    throw new Error(`create ${EXEMPT_NS}: ${ex.status} ${ex.body}`);
  createdExemptNs = ex.status === 201;
  const rc = await admin.kube("POST", "/apis/node.k8s.io/v1/runtimeclasses", {
    metadata: { name: POD_SECURITY_EXEMPT.runtimeClass },
    handler: "runc",
  });
  if (rc.status !== 201 && rc.status !== 409)
    throw new Error(`create RuntimeClass: ${rc.status} ${rc.body}`);
}, 90_000);

afterAll(async () => {
  for (const ns of [RESTRICTED, UNLABELLED, ...(createdExemptNs ? [EXEMPT_NS] : [])])
    await admin?.kube("DELETE", `/api/v1/namespaces/${ns}`);
  await admin?.kube(
    "DELETE",
    `/apis/node.k8s.io/v1/runtimeclasses/${POD_SECURITY_EXEMPT.runtimeClass}`,
  );
});

interface Case {
  label: string;
  ns: string;
  user: RequestUserInfo;
  path: string;
  body: JsonObject;
  resource: string;
  group?: string;
  kind: string;
  /** The configuration decides this case: without it the verdict differs. */
  dependsOnConfig: boolean;
}

test("pods and workloads whose PodSecurity outcome depends on the configured exemptions", async () => {
  for (const ns of [RESTRICTED, UNLABELLED, EXEMPT_NS]) await serviceAccountReady(ns);
  const deployment = (ns: string): JsonObject => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: ns },
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: (privilegedPod("x", ns).spec ?? {}) as JsonObject,
      },
    },
  });
  const pods = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
  const cases: Case[] = [
    {
      label: "privileged pod, restricted namespace, admin",
      ns: RESTRICTED,
      user: ADMIN,
      path: pods(RESTRICTED),
      body: privilegedPod("p1", RESTRICTED),
      resource: "pods",
      kind: "Pod",
      dependsOnConfig: false,
    },
    {
      label: "privileged pod, restricted namespace, exempt user",
      ns: RESTRICTED,
      user: EXEMPT_USER,
      path: pods(RESTRICTED),
      body: privilegedPod("p2", RESTRICTED),
      resource: "pods",
      kind: "Pod",
      dependsOnConfig: true,
    },
    {
      label: "privileged pod, restricted namespace, exempt RuntimeClass",
      ns: RESTRICTED,
      user: ADMIN,
      path: pods(RESTRICTED),
      body: privilegedPod("p3", RESTRICTED, POD_SECURITY_EXEMPT.runtimeClass),
      resource: "pods",
      kind: "Pod",
      dependsOnConfig: true,
    },
    {
      label: "privileged pod, exempt namespace labelled restricted",
      ns: EXEMPT_NS,
      user: ADMIN,
      path: pods(EXEMPT_NS),
      body: privilegedPod("p4", EXEMPT_NS),
      resource: "pods",
      kind: "Pod",
      dependsOnConfig: true,
    },
    {
      label: "privileged pod, unlabelled namespace (configured defaults)",
      ns: UNLABELLED,
      user: ADMIN,
      path: pods(UNLABELLED),
      body: privilegedPod("p5", UNLABELLED),
      resource: "pods",
      kind: "Pod",
      dependsOnConfig: false,
    },
    {
      label: "privileged Deployment, restricted namespace, admin",
      ns: RESTRICTED,
      user: ADMIN,
      path: `/apis/apps/v1/namespaces/${RESTRICTED}/deployments`,
      body: deployment(RESTRICTED),
      resource: "deployments",
      group: "apps",
      kind: "Deployment",
      dependsOnConfig: false,
    },
    {
      label: "privileged Deployment, restricted namespace, exempt user",
      ns: RESTRICTED,
      user: EXEMPT_USER,
      path: `/apis/apps/v1/namespaces/${RESTRICTED}/deployments`,
      body: deployment(RESTRICTED),
      resource: "deployments",
      group: "apps",
      kind: "Deployment",
      dependsOnConfig: true,
    },
  ];
  const mismatches: string[] = [];
  let dependent = 0;
  for (const c of cases) {
    const labels = await labelsOf(c.ns);
    const request = makeRequest({
      group: c.group ?? "",
      resource: c.resource,
      operation: "CREATE",
      namespace: c.ns,
      name: String((c.body.metadata as { name: string }).name),
      object: c.body,
      kind: { group: c.group ?? "", kind: c.kind },
      userInfo: c.user,
    });
    const v = podSecurityVerdict(request, labels, config);
    const without = podSecurityVerdict(request, labels);
    const res = await send("POST", `${c.path}?dryRun=All`, c.body, c.user);
    const got = {
      status: res.status,
      message:
        res.status >= 300 ? (JSON.parse(res.body) as { message?: string }).message : undefined,
      warnings: warningsOf(res.headers),
    };
    const want = {
      status: v?.rejection ? v.rejection.status : 201,
      message: v?.rejection?.message,
      warnings: v?.warnings ?? [],
    };
    const same =
      got.status === want.status &&
      (want.message === undefined || sameMessage(want.message, got.message ?? "")) &&
      JSON.stringify(got.warnings) === JSON.stringify(want.warnings);
    if (!same)
      mismatches.push(`${c.label}: predicted ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
    const differs =
      JSON.stringify([without?.rejection, without?.warnings]) !==
      JSON.stringify([v?.rejection, v?.warnings]);
    if (differs !== c.dependsOnConfig)
      mismatches.push(
        `${c.label}: without the configuration the verdict ${differs ? "differs" : "is the same"}`,
      );
    if (differs) dependent++;
    if (c.dependsOnConfig && !v?.exemption) mismatches.push(`${c.label}: no exemption named`);
  }
  console.log(
    `PodSecurity with its configuration: ${cases.length - mismatches.length}/${cases.length} as the apiserver answers (${dependent} decided by the configuration)`,
  );
  expect(mismatches).toEqual([]);
}, 120_000);

test("a namespace the configuration exempts but whose labels set a policy: the apiserver's warning", async () => {
  const name = EXEMPT_NS;
  const old = (await admin.kubeOk("GET", `/api/v1/namespaces/${name}`)) as JsonObject;
  const next = {
    ...old,
    metadata: {
      ...(old.metadata as JsonObject),
      labels: {
        ...RESTRICTED_LABELS,
        "pod-security.kubernetes.io/enforce-version": "v1.30",
        "pod-security.kubernetes.io/audit": "baseline",
      },
    },
  };
  const request = (
    operation: "CREATE" | "UPDATE",
    object: JsonObject,
    oldObject: JsonObject | null,
  ) =>
    makeRequest({
      resource: "namespaces",
      operation,
      namespace: name,
      name,
      object,
      oldObject,
      kind: { kind: "Namespace" },
      userInfo: ADMIN,
    });
  // An UPDATE that changes the enforced standard: the exempt namespace is not checked, it is warned about.
  const update = podSecurityVerdict(request("UPDATE", next, old), undefined, config);
  const res = await send("PUT", `/api/v1/namespaces/${name}?dryRun=All`, next, ADMIN);
  expect(res.status).toBe(200);
  expect(warningsOf(res.headers)).toEqual(update?.warnings);
  // The audit label sets no version: the configured default audit-version applies.
  expect(update?.warnings).toEqual([
    `namespace "${name}" is exempt from Pod Security, and the policy (enforce=restricted:v1.30, audit=baseline:${config.defaults["audit-version"]}) will be ignored`,
  ]);
  // Without the configuration the same update would be checked against the namespace's pods.
  expect(podSecurityVerdict(request("UPDATE", next, old), undefined)?.warnings).toEqual([]);
});
