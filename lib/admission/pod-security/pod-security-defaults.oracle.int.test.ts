/**
 * PodSecurity with non-built-in defaults, beside a real apiserver configured with them. The shared
 * control plane keeps the built-in defaults (any other default changes what every other test sees),
 * so this file starts a control plane of its own whose AdmissionConfiguration sets
 * enforce baseline:v1.30, audit restricted (its version left to the plugin: latest) and
 * warn restricted:v1.31, and exempts a user, a RuntimeClass and two namespaces. Pods, Deployments,
 * CronJobs (created, dry run) and pod updates (of stored pods, dry run), as three users, in
 * unlabelled, partially labelled, fully labelled and exempt namespaces, with privileged, baseline,
 * restricted and version-sensitive pod shapes; and creates and updates of exempt namespaces whose
 * labels equal the defaults or not. Each must get exactly Predict's answer, given the
 * configuration read from the same file: status, message, PodSecurity warnings and the
 * `pod-security.kubernetes.io/*` audit annotations of the request's audit event.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startControlPlane, type ControlPlane } from "../../../cluster/control-plane";
import { httpsRequest, type HttpsJsonResponse } from "../../../cluster/https-json";
import { auditLogFiles, stackMinor } from "../../../cluster/harness/stack";
import { readAdmissionConfig } from "@/server/kube/admission-config";
import {
  makeRequest,
  type AdmissionRequest,
  type RequestUserInfo,
} from "@/lib/admission/model/request";
import type { PodSecurityConfig } from "@/lib/admission/model/admission-configuration";
import type { Labels } from "@/lib/admission/model/selectors";
import type { JsonObject } from "@/lib/admission/validate/json";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import { predictCompiled } from "@/lib/admission/prediction/predict";
import { sameMessage } from "./admission";

/** The configured defaults: none of them built in; audit-version left for the plugin to default. */
const DEFAULTS = {
  enforce: "baseline",
  "enforce-version": "v1.30",
  audit: "restricted",
  warn: "restricted",
  "warn-version": "v1.31",
} as const;
const BUILT_IN_DEFAULTS = {
  enforce: "privileged",
  "enforce-version": "latest",
  audit: "privileged",
  "audit-version": "latest",
  warn: "privileged",
  "warn-version": "latest",
} as const;

const EXEMPT_USER = "psa-defaults-exempt-user";
const EXEMPT_RUNTIME_CLASS = "psa-defaults-exempt";
/** An exempt namespace that exists (pods in it) and one only ever created in a dry run. */
const EXEMPT_NS = "psa-defaults-exempt";
const EXEMPT_NEW_NS = "psa-defaults-exempt-new";

const P = "pod-security.kubernetes.io/";

/** Namespaces and their labels: none, some modes, every mode. */
const NAMESPACES: Record<string, Record<string, string>> = {
  plain: {},
  "enforce-restricted": { [`${P}enforce`]: "restricted" },
  "enforce-latest": { [`${P}enforce-version`]: "latest" },
  "warn-baseline": { [`${P}warn`]: "baseline" },
  "audit-warn-versions": { [`${P}audit-version`]: "v1.25", [`${P}warn-version`]: "latest" },
  "enforce-privileged": { [`${P}enforce`]: "privileged" },
  "all-privileged": {
    [`${P}enforce`]: "privileged",
    [`${P}audit`]: "privileged",
    [`${P}warn`]: "privileged",
  },
  "all-set": {
    [`${P}enforce`]: "restricted",
    [`${P}enforce-version`]: "latest",
    [`${P}audit`]: "baseline",
    [`${P}audit-version`]: "latest",
    [`${P}warn`]: "restricted",
    [`${P}warn-version`]: "latest",
  },
  [EXEMPT_NS]: {},
};

const MASTERS = ["system:masters", "system:authenticated"];
const USERS: Record<string, RequestUserInfo> = {
  admin: { username: "admin", groups: MASTERS },
  developer: { username: "developer", groups: MASTERS },
  exempt: { username: EXEMPT_USER, groups: MASTERS },
};

const container = (extra: JsonObject = {}): JsonObject => ({
  name: "c",
  image: "registry.k8s.io/pause",
  ...extra,
});
const RESTRICTED_SC: JsonObject = {
  allowPrivilegeEscalation: false,
  runAsNonRoot: true,
  seccompProfile: { type: "RuntimeDefault" },
  capabilities: { drop: ["ALL"] },
};

/**
 * Pod specs: privileged (fails baseline), plain (baseline, fails restricted), restricted, and two
 * whose verdict turns on the version: a probe host (baseline from v1.34) and a sysctl baseline
 * allows from v1.32 only.
 */
const SHAPES: Record<string, JsonObject> = {
  privileged: { containers: [container({ securityContext: { privileged: true } })] },
  baseline: { containers: [container()] },
  restricted: { containers: [container({ securityContext: RESTRICTED_SC })] },
  "probe-host": {
    containers: [
      container({
        securityContext: RESTRICTED_SC,
        livenessProbe: { httpGet: { host: "10.0.0.1", port: 8080, path: "/" } },
      }),
    ],
  },
  "sysctl-v132": {
    securityContext: { sysctls: [{ name: "net.ipv4.tcp_rmem", value: "4096 87380 6291456" }] },
    containers: [container()],
  },
};

let baseDir: string;
let cp: ControlPlane;
let ca: Buffer;
let config: PodSecurityConfig;
/** Each namespace's labels as stored (with `kubernetes.io/metadata.name`). */
const stored: Record<string, Labels> = {};

function send(
  method: string,
  p: string,
  body: unknown,
  user: RequestUserInfo,
): Promise<HttpsJsonResponse> {
  const headers: Record<string, string> =
    user.username === "admin"
      ? {}
      : { "Impersonate-User": user.username, "Impersonate-Group": "system:masters" };
  return httpsRequest(`${cp.server}${p}`, {
    method,
    body,
    ca,
    token: cp.tokens.admin,
    headers,
    timeoutMs: 30_000,
  });
}

async function ok(method: string, p: string, body?: unknown): Promise<JsonObject> {
  const res = await send(method, p, body, USERS.admin as RequestUserInfo);
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${res.body.slice(0, 300)}`);
  return JSON.parse(res.body) as JsonObject;
}

/** PodSecurity's warnings among a response's `Warning: 299 - "…"` headers. */
function warningsOf(headers: HttpsJsonResponse["headers"]): string[] {
  const raw = headers["warning"];
  const all = Array.isArray(raw) ? raw.join(", ") : (raw ?? "");
  return [...all.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)]
    .map((m) => (m[1] as string).replace(/\\(.)/g, "$1"))
    .filter((w) => w.includes("PodSecurity") || w.includes("exempt from Pod Security"));
}

/** Runs `fn` over `items`, `width` at a time. */
async function inBatches<T, R>(items: T[], width: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width)
    out.push(...(await Promise.all(items.slice(i, i + width).map(fn))));
  return out;
}

const podOf = (name: string, ns: string, spec: JsonObject, rc?: string): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: ns },
  spec: rc ? { ...spec, runtimeClassName: rc } : spec,
});

beforeAll(async () => {
  baseDir = mkdtempSync(path.join(os.tmpdir(), "portcullis-psa-defaults-"));
  cp = await startControlPlane({
    // No dashboard: the audit log is read, not the webhook.
    dashboardUrl: "http://127.0.0.1:1",
    baseDir,
    // The minor the run is for (npm run test:versions), as the shared stack's.
    minor: stackMinor(),
    podSecurity: {
      defaults: DEFAULTS,
      exemptions: {
        usernames: [EXEMPT_USER],
        runtimeClasses: [EXEMPT_RUNTIME_CLASS],
        namespaces: [EXEMPT_NS, EXEMPT_NEW_NS],
      },
    },
  });
  ca = readFileSync(cp.caFile);
  config = readAdmissionConfig(cp.admissionConfigFile).podSecurity;
  await Promise.all([
    ...Object.entries(NAMESPACES).map(([name, labels]) =>
      ok("POST", "/api/v1/namespaces", { metadata: { name, labels } }),
    ),
    ok("POST", "/apis/node.k8s.io/v1/runtimeclasses", {
      metadata: { name: EXEMPT_RUNTIME_CLASS },
      handler: "runc",
    }),
  ]);
  for (const ns of Object.keys(NAMESPACES)) {
    const o = await ok("GET", `/api/v1/namespaces/${ns}`);
    stored[ns] = ((o.metadata as JsonObject).labels ?? {}) as Labels;
  }
}, 180_000);

/** Waits for every namespace's default ServiceAccount, then stores the pods the updates change. */
async function storedPods(): Promise<void> {
  // Pods need their namespace's default ServiceAccount (the ServiceAccount plugin looks it up).
  await expect
    .poll(
      async () =>
        (
          await Promise.all(
            Object.keys(NAMESPACES).map(
              async (ns) =>
                (
                  await send(
                    "GET",
                    `/api/v1/namespaces/${ns}/serviceaccounts/default`,
                    undefined,
                    USERS.admin as RequestUserInfo,
                  )
                ).status,
            ),
          )
        ).every((s) => s === 200),
      { timeout: 60_000 },
    )
    .toBe(true);
  // Stored pods to update: a plain one and a privileged one in every namespace (created by the
  // exempt user, so that nothing refuses them).
  await Promise.all(
    Object.keys(NAMESPACES).flatMap((ns) =>
      (["baseline", "privileged"] as const).map(async (shape) => {
        const res = await send(
          "POST",
          `/api/v1/namespaces/${ns}/pods`,
          podOf(`stored-${shape}`, ns, SHAPES[shape] as JsonObject),
          USERS.exempt as RequestUserInfo,
        );
        if (res.status !== 201) throw new Error(`stored pod ${ns}: ${res.status} ${res.body}`);
      }),
    ),
  );
}

afterAll(async () => {
  await cp?.stop();
  if (baseDir) rmSync(baseDir, { recursive: true, force: true });
});

interface Case {
  label: string;
  method: "POST" | "PUT";
  path: string;
  body: JsonObject;
  user: RequestUserInfo;
  request: AdmissionRequest;
}

interface Outcome {
  status: number;
  message?: string;
  warnings: string[];
  audit: Record<string, string>;
}

function podCreates(): Case[] {
  const cases: Case[] = [];
  let n = 0;
  for (const ns of Object.keys(NAMESPACES))
    for (const [userKey, user] of Object.entries(USERS))
      for (const [shape, spec] of Object.entries(SHAPES))
        for (const rc of [undefined, EXEMPT_RUNTIME_CLASS]) {
          // Every other pod without a name (generateName): the message names a generated one.
          const named = n++ % 2 === 0;
          const name = `${shape}${rc ? "-rc" : ""}`;
          const body = podOf(name, ns, spec, rc);
          const meta: JsonObject = named
            ? { name, namespace: ns }
            : { generateName: `${name}-`, namespace: ns };
          const pod: JsonObject = { ...body, metadata: meta };
          cases.push({
            label: `create pod ${shape}${rc ? " (exempt RuntimeClass)" : ""} in ${ns} as ${userKey}`,
            method: "POST",
            path: `/api/v1/namespaces/${ns}/pods`,
            body: pod,
            user,
            request: makeRequest({
              resource: "pods",
              operation: "CREATE",
              namespace: ns,
              name: named ? name : undefined,
              object: pod,
              kind: { kind: "Pod" },
              userInfo: user,
              dryRun: true,
            }),
          });
        }
  return cases;
}

function workloadCreates(): Case[] {
  const cases: Case[] = [];
  for (const ns of Object.keys(NAMESPACES))
    for (const userKey of ["admin", "exempt"] as const)
      for (const [shape, spec] of Object.entries(SHAPES)) {
        const user = USERS[userKey] as RequestUserInfo;
        const template = { metadata: { labels: { app: "w" } }, spec };
        const deployment: JsonObject = {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: `d-${shape}`, namespace: ns },
          spec: { selector: { matchLabels: { app: "w" } }, template },
        };
        cases.push({
          label: `create Deployment ${shape} in ${ns} as ${userKey}`,
          method: "POST",
          path: `/apis/apps/v1/namespaces/${ns}/deployments`,
          body: deployment,
          user,
          request: makeRequest({
            group: "apps",
            resource: "deployments",
            operation: "CREATE",
            namespace: ns,
            name: `d-${shape}`,
            object: deployment,
            kind: { kind: "Deployment" },
            userInfo: user,
            dryRun: true,
          }),
        });
        if (shape !== "privileged" && shape !== "probe-host") continue;
        const cronJob: JsonObject = {
          apiVersion: "batch/v1",
          kind: "CronJob",
          metadata: { name: `cj-${shape}`, namespace: ns },
          spec: {
            schedule: "0 * * * *",
            jobTemplate: {
              spec: { template: { spec: { ...spec, restartPolicy: "Never" } } },
            },
          },
        };
        cases.push({
          label: `create CronJob ${shape} in ${ns} as ${userKey}`,
          method: "POST",
          path: `/apis/batch/v1/namespaces/${ns}/cronjobs`,
          body: cronJob,
          user,
          request: makeRequest({
            group: "batch",
            resource: "cronjobs",
            operation: "CREATE",
            namespace: ns,
            name: `cj-${shape}`,
            object: cronJob,
            kind: { kind: "CronJob" },
            userInfo: user,
            dryRun: true,
          }),
        });
      }
  return cases;
}

/** Updates of the stored pods: a new image (evaluated) or a new label (not), as each user. */
async function podUpdates(): Promise<Case[]> {
  const cases: Case[] = [];
  for (const ns of Object.keys(NAMESPACES))
    for (const shape of ["baseline", "privileged"] as const) {
      const name = `stored-${shape}`;
      const old = await ok("GET", `/api/v1/namespaces/${ns}/pods/${name}`);
      const spec = old.spec as JsonObject;
      const containers = spec.containers as JsonObject[];
      const newImage: JsonObject = {
        ...old,
        spec: {
          ...spec,
          containers: containers.map((c) => ({ ...c, image: `${String(c.image)}:3.10` })),
        },
      };
      const meta = old.metadata as JsonObject;
      const newLabel: JsonObject = {
        ...old,
        metadata: { ...meta, labels: { ...((meta.labels ?? {}) as JsonObject), touched: "yes" } },
      };
      const variants: Array<[string, JsonObject, string[]]> = [
        ["new image", newImage, ["admin", "developer", "exempt"]],
        ["new label", newLabel, ["admin"]],
      ];
      for (const [what, object, users] of variants)
        for (const userKey of users) {
          const user = USERS[userKey] as RequestUserInfo;
          cases.push({
            label: `update ${shape} pod (${what}) in ${ns} as ${userKey}`,
            method: "PUT",
            path: `/api/v1/namespaces/${ns}/pods/${name}`,
            body: object,
            user,
            request: makeRequest({
              resource: "pods",
              operation: "UPDATE",
              namespace: ns,
              name,
              object,
              oldObject: old,
              kind: { kind: "Pod" },
              userInfo: user,
              dryRun: true,
            }),
          });
        }
    }
  return cases;
}

/**
 * Creates of a new exempt namespace and updates of the existing one with labels equivalent to the
 * defaults or not: the plugin warns that an exempt namespace's policy is ignored unless it is the
 * defaults' (or privileged).
 */
async function namespaceWrites(): Promise<Case[]> {
  const labelSets: Array<Record<string, string>> = [
    {},
    { [`${P}enforce`]: "baseline", [`${P}enforce-version`]: "v1.30" },
    { [`${P}warn`]: "restricted" },
    { [`${P}warn-version`]: "latest" },
    { [`${P}enforce`]: "restricted" },
    { [`${P}enforce-version`]: "v1.31" },
    { [`${P}audit-version`]: "v1.25", [`${P}enforce`]: "restricted" },
    { [`${P}enforce`]: "privileged" },
    { [`${P}enforce`]: "privileged", [`${P}audit`]: "privileged", [`${P}warn`]: "privileged" },
  ];
  const old = await ok("GET", `/api/v1/namespaces/${EXEMPT_NS}`);
  const admin = USERS.admin as RequestUserInfo;
  const cases: Case[] = [];
  for (const [i, labels] of labelSets.entries()) {
    const created: JsonObject = {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: EXEMPT_NEW_NS, labels },
    };
    cases.push({
      label: `create exempt namespace with labels #${i}`,
      method: "POST",
      path: "/api/v1/namespaces",
      body: created,
      user: admin,
      request: makeRequest({
        resource: "namespaces",
        operation: "CREATE",
        name: EXEMPT_NEW_NS,
        namespace: EXEMPT_NEW_NS,
        object: created,
        kind: { kind: "Namespace" },
        userInfo: admin,
        dryRun: true,
      }),
    });
    const meta = old.metadata as JsonObject;
    const updated: JsonObject = {
      ...old,
      metadata: { ...meta, labels: { ...((meta.labels ?? {}) as JsonObject), ...labels } },
    };
    cases.push({
      label: `update exempt namespace with labels #${i}`,
      method: "PUT",
      path: `/api/v1/namespaces/${EXEMPT_NS}`,
      body: updated,
      user: admin,
      request: makeRequest({
        resource: "namespaces",
        operation: "UPDATE",
        name: EXEMPT_NS,
        namespace: EXEMPT_NS,
        object: updated,
        oldObject: old,
        kind: { kind: "Namespace" },
        userInfo: admin,
        dryRun: true,
      }),
    });
  }
  return cases;
}

/** Annotations in key order (JSON.stringify compares in insertion order). */
const sorted = (a: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(a).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));

/** The pod-security annotations of each request's ResponseComplete audit event, by Audit-Id. */
async function auditAnnotations(ids: string[]): Promise<Map<string, Record<string, string>>> {
  const wanted = new Set(ids);
  const found = new Map<string, Record<string, string>>();
  // The audit log is written as requests complete: wait until every request's event is there.
  await expect
    .poll(
      () => {
        for (const file of auditLogFiles(cp))
          for (const line of readFileSync(file, "utf8").split("\n")) {
            if (line === "") continue;
            const e = JSON.parse(line) as {
              auditID?: string;
              stage?: string;
              annotations?: Record<string, string>;
            };
            if (e.stage !== "ResponseComplete" || !e.auditID || !wanted.has(e.auditID)) continue;
            found.set(
              e.auditID,
              Object.fromEntries(
                Object.entries(e.annotations ?? {}).filter(([k]) => k.startsWith(P)),
              ),
            );
          }
        return found.size;
      },
      { timeout: 30_000, interval: 250 },
    )
    .toBe(wanted.size);
  return found;
}

test("non-built-in defaults and exemptions: Predict gives the apiserver's status, message, warnings and audit annotations", async () => {
  // The file holds the defaults given, audit-version defaulted by the reader as by the plugin.
  expect(config.defaults).toEqual({ ...DEFAULTS, "audit-version": "latest" });
  await storedPods();
  const cases = [
    ...podCreates(),
    ...workloadCreates(),
    ...(await podUpdates()),
    ...(await namespaceWrites()),
  ];
  const answers = await inBatches(cases, 12, async (c) => {
    const res = await send(c.method, `${c.path}?dryRun=All`, c.body, c.user);
    return { res, auditID: String(res.headers["audit-id"] ?? "") };
  });
  const audit = await auditAnnotations(answers.map((a) => a.auditID));

  const kubernetes = { minor: stackMinor(), source: "cluster" as const };
  const snapshot = compileSnapshot({ namespaces: stored, podSecurity: config, kubernetes });
  const builtIn = compileSnapshot({
    namespaces: stored,
    podSecurity: { ...config, defaults: BUILT_IN_DEFAULTS },
    kubernetes,
  });
  const outcomeOf = (c: Case, s: typeof snapshot): Outcome => {
    const ps = predictCompiled(c.request, s).podSecurity;
    return {
      status: ps?.rejection?.status ?? (c.method === "POST" ? 201 : 200),
      ...(ps?.rejection ? { message: ps.rejection.message } : {}),
      warnings: ps?.warnings ?? [],
      audit: sorted(ps?.auditAnnotations ?? {}),
    };
  };
  const mismatches: string[] = [];
  let agree = 0;
  let refused = 0;
  let warned = 0;
  let byDefaults = 0;
  let audited = 0;
  let exempt = 0;
  for (const [i, c] of cases.entries()) {
    const { res, auditID } = answers[i] as (typeof answers)[number];
    const want = outcomeOf(c, snapshot);
    const undecided = predictCompiled(c.request, snapshot).podSecurity?.undecided;
    const got: Outcome = {
      status: res.status,
      ...(res.status >= 300
        ? { message: (JSON.parse(res.body) as { message?: string }).message ?? "" }
        : {}),
      warnings: warningsOf(res.headers),
      audit: sorted(audit.get(auditID) ?? {}),
    };
    // A generated name's five random characters are the only part not predicted.
    if (want.message && got.message && sameMessage(want.message, got.message))
      got.message = want.message;
    if (undecided) mismatches.push(`${c.label}: undecided (${undecided})`);
    if (JSON.stringify(got) !== JSON.stringify(want))
      mismatches.push(`${c.label}: predicted ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
    else if (!undecided) agree++;
    if (res.status === 403) refused++;
    if (got.warnings.length > 0) warned++;
    if (`${P}audit-violations` in got.audit) audited++;
    if (`${P}exempt` in got.audit) exempt++;
    if (JSON.stringify(outcomeOf(c, builtIn)) !== JSON.stringify(want)) byDefaults++;
  }
  console.info(
    `PodSecurity defaults oracle: ${agree}/${cases.length} as the apiserver answers (${refused} refused, ${warned} warned, ${audited} with audit violations, ${exempt} exempt; ${byDefaults} decided by the configured defaults)`,
  );
  expect(mismatches.slice(0, 12)).toEqual([]);
  // The corpus reaches what the defaults decide: a Predict that ignored them would disagree here.
  expect(byDefaults).toBeGreaterThan(150);
  expect(refused).toBeGreaterThan(30);
  expect(warned).toBeGreaterThan(50);
  expect(audited).toBeGreaterThan(80);
  expect(exempt).toBeGreaterThan(100);
}, 300_000);
