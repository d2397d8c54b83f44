/**
 * Matching oracle for static hooks and policies (manifest-based admission, Kubernetes 1.37):
 * recorder webhooks and audited policies are loaded into the real kube-apiserver from its manifest
 * directories, beside API-based ones named to sort before them; requests they intercept are sent
 * — configmaps, and writes of admission configuration itself, which only static webhooks see —
 * and what the apiserver really did must equal what predict says, the prediction made from the
 * directories read as the dashboard reads them (server/kube/admission-manifests.ts):
 * - webhooks: the recorder's calls (mutating as an ordered sequence with rounds, validating as a
 *   set) and the audit's `mutation.webhook.admission.k8s.io/round_R_index_I` annotations, which
 *   name the static configuration;
 * - validating policies: the `<policy>/seen` audit annotation each policy writes when evaluated;
 * - the static mutating policy: the annotation it adds to the object returned.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  auditLogFiles,
  readStack,
  stackMinor,
  type StackInfo,
} from "../../../cluster/harness/stack";
import { servesStaticManifests } from "../../../cluster/control-plane";
import {
  startWebhookServer,
  type RecordedCall,
  type WebhookServer,
} from "../../../cluster/harness/webhook-server";
import {
  manifestDirs,
  waitForManifestSet,
  writeStaticManifests,
  type ManifestPluginName,
} from "../../../cluster/harness/static-manifests";
import { httpsRequest, type HttpsJsonResponse } from "../../../cluster/https-json";
import { KubeClient } from "@/server/kube/client";
import { kubeConfigFor } from "@/server/kube/config";
import { readAdmissionState } from "@/server/kube/admission-state";
import { readManifestDir } from "@/server/kube/admission-manifests";
import { compileSnapshot, type CompiledSnapshot } from "@/lib/admission/matching/compile";
import { predictCompiled, type Prediction } from "@/lib/admission/prediction/predict";
import { annotationPatch, mutatingRounds } from "../../../test/oracle/admission-calls";
import type { AdmissionRequest, JsonObject } from "@/lib/admission/model/request";
import type { AdmissionOperation } from "@/lib/k8s/types";

const id = `so${Date.now().toString(36)}`;
const SUFFIX = `.${id}.portcullis.test`;
const SCOPE = { "portcullis.dev/static-admission": id };
const NS = `${id}-ns`;
const FILE = `${id}.yaml`;
const USER = { username: "admin", groups: ["system:masters", "system:authenticated"] };
const AR = "admissionregistration.k8s.io";

/** Static configurations sort after the API ones by name: running first proves static-first. */
const STATIC = `${id}-static.static.k8s.io`;
const API = `${id}-api`;
const STATIC_MAP_ANNOTATION = "portcullis.test/static-map";

let stack: StackInfo;
let ca: Buffer;
let hooks: WebhookServer;
let compiled: CompiledSnapshot;

function kube(method: string, p: string, body?: unknown): Promise<HttpsJsonResponse> {
  return httpsRequest(`${stack.server}${p}`, { method, body, ca, token: stack.tokens.admin });
}

async function kubeOk<T>(method: string, p: string, body?: unknown): Promise<T> {
  const res = await kube(method, p, body);
  if (res.status < 200 || res.status >= 300)
    throw new Error(`${method} ${p}: ${res.status} ${res.body}`);
  return JSON.parse(res.body) as T;
}

// ── hooks and policies ───────────────────────────────────────────────────────────────────────

/** Recorder hooks: static or API, mutating or validating. */
const HOOKS = [
  { short: "sm1", phase: "mutating", origin: "static" },
  { short: "am1", phase: "mutating", origin: "api" },
  { short: "sv1", phase: "validating", origin: "static" },
  { short: "av1", phase: "validating", origin: "api" },
] as const;
const phaseOf = new Map<string, string>(HOOKS.map((h) => [h.short, h.phase]));

const CONFIG_RESOURCES = [
  "validatingwebhookconfigurations",
  "mutatingwebhookconfigurations",
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
];

function webhook(short: string, mutating: boolean): Record<string, unknown> {
  return {
    ...hooks.webhook(`${short}${SUFFIX}`, short),
    objectSelector: { matchLabels: SCOPE },
    rules: [
      {
        operations: ["CREATE", "UPDATE", "DELETE"],
        apiGroups: [""],
        apiVersions: ["v1"],
        resources: ["configmaps"],
      },
      {
        operations: ["CREATE", "UPDATE", "DELETE"],
        apiGroups: [AR],
        apiVersions: ["v1"],
        resources: CONFIG_RESOURCES,
      },
    ],
    ...(mutating ? { reinvocationPolicy: "IfNeeded" } : {}),
  };
}

function auditedPolicy(name: string): Record<string, unknown> {
  return {
    apiVersion: `${AR}/v1`,
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: {
        objectSelector: { matchLabels: SCOPE },
        resourceRules: [
          {
            operations: ["CREATE", "UPDATE"],
            apiGroups: [""],
            apiVersions: ["v1"],
            resources: ["configmaps"],
          },
          {
            operations: ["CREATE", "UPDATE"],
            apiGroups: [AR],
            apiVersions: ["v1"],
            resources: CONFIG_RESOURCES,
          },
        ],
      },
      validations: [{ expression: "true" }],
      auditAnnotations: [{ key: "seen", valueExpression: "'yes'" }],
    },
  };
}

function binding(name: string, policyName: string): Record<string, unknown> {
  return {
    apiVersion: `${AR}/v1`,
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name },
    spec: { policyName, validationActions: ["Deny"] },
  };
}

/** The static objects, one file per plugin directory. */
function staticObjects(): Record<ManifestPluginName, Record<string, unknown>[]> {
  return {
    MutatingAdmissionWebhook: [
      {
        apiVersion: `${AR}/v1`,
        kind: "MutatingWebhookConfiguration",
        metadata: { name: STATIC },
        webhooks: [webhook("sm1", true)],
      },
    ],
    ValidatingAdmissionWebhook: [
      {
        apiVersion: `${AR}/v1`,
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: STATIC },
        webhooks: [webhook("sv1", false)],
      },
    ],
    ValidatingAdmissionPolicy: [auditedPolicy(STATIC), binding(STATIC, STATIC)],
    MutatingAdmissionPolicy: [
      {
        apiVersion: `${AR}/v1`,
        kind: "MutatingAdmissionPolicy",
        metadata: { name: STATIC },
        spec: {
          failurePolicy: "Fail",
          reinvocationPolicy: "Never",
          matchConstraints: {
            objectSelector: { matchLabels: SCOPE },
            resourceRules: [
              {
                operations: ["CREATE", "UPDATE"],
                apiGroups: [""],
                apiVersions: ["v1"],
                resources: ["configmaps"],
              },
            ],
          },
          mutations: [
            {
              patchType: "ApplyConfiguration",
              applyConfiguration: {
                expression: `Object{metadata: Object.metadata{annotations: {"${STATIC_MAP_ANNOTATION}": "1"}}}`,
              },
            },
          ],
        },
      },
      {
        apiVersion: `${AR}/v1`,
        kind: "MutatingAdmissionPolicyBinding",
        metadata: { name: STATIC },
        spec: { policyName: STATIC },
      },
    ],
  };
}

// ── requests ─────────────────────────────────────────────────────────────────────────────────

interface Action {
  label: string;
  method: "POST" | "PUT" | "DELETE";
  path: string;
  body?: JsonObject;
  dryRun: boolean;
  request: Omit<AdmissionRequest, "namespaceObject" | "userInfo" | "dryRun">;
}

let counter = 0;
const uniq = (p: string) => `${p}-${(counter++).toString(36)}`;

async function getJson(p: string): Promise<JsonObject> {
  return kubeOk<JsonObject>("GET", p);
}

/** Each request built when it is sent (an update reads the stored object first). */
function plan(): Array<() => Promise<Action>> {
  const preps: Array<() => Promise<Action>> = [];
  const cmPath = `/api/v1/namespaces/${NS}/configmaps`;
  const cm = (
    op: AdmissionOperation,
    name: string,
    object: JsonObject | null,
    old: JsonObject | null,
  ) => ({
    group: "",
    version: "v1",
    resource: "configmaps",
    subresource: "",
    kind: { group: "", version: "v1", kind: "ConfigMap" },
    operation: op,
    namespace: NS,
    name,
    object,
    oldObject: old,
  });
  for (const labels of [SCOPE, {}, { ...SCOPE, extra: "x" }])
    for (const dryRun of [false, true]) {
      const name = uniq(`${id}-cm`);
      const body = {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name, namespace: NS, labels },
        data: { a: "1" },
      };
      preps.push(async () => ({
        label: `create configmap ${name}${dryRun ? " dry-run" : ""}`,
        method: "POST",
        path: cmPath,
        body,
        dryRun,
        request: cm("CREATE", name, body, null),
      }));
      if (dryRun) continue;
      preps.push(async () => {
        const old = await getJson(`${cmPath}/${name}`);
        const next = { ...old, data: { a: "2" } };
        return {
          label: `update configmap ${name}`,
          method: "PUT",
          path: `${cmPath}/${name}`,
          body: next,
          dryRun: false,
          request: cm("UPDATE", name, next, old),
        };
      });
      preps.push(async () => {
        const old = await getJson(`${cmPath}/${name}`);
        return {
          label: `delete configmap ${name}`,
          method: "DELETE",
          path: `${cmPath}/${name}`,
          dryRun: false,
          request: cm("DELETE", name, null, old),
        };
      });
    }

  // Admission configuration writes: API-based webhooks never see them, static ones do; API-based
  // policies see webhook configurations but never policies or bindings.
  const kinds: Array<{ resource: string; kind: string; body: (name: string) => JsonObject }> = [
    {
      resource: "validatingwebhookconfigurations",
      kind: "ValidatingWebhookConfiguration",
      body: (name) => ({
        apiVersion: `${AR}/v1`,
        kind: "ValidatingWebhookConfiguration",
        metadata: { name, labels: SCOPE },
        webhooks: [],
      }),
    },
    {
      resource: "mutatingwebhookconfigurations",
      kind: "MutatingWebhookConfiguration",
      body: (name) => ({
        apiVersion: `${AR}/v1`,
        kind: "MutatingWebhookConfiguration",
        metadata: { name, labels: SCOPE },
        webhooks: [],
      }),
    },
    {
      resource: "validatingadmissionpolicies",
      kind: "ValidatingAdmissionPolicy",
      body: (name) => ({
        ...(auditedPolicy(name) as JsonObject),
        metadata: { name, labels: SCOPE },
      }),
    },
    {
      resource: "validatingadmissionpolicybindings",
      kind: "ValidatingAdmissionPolicyBinding",
      body: (name) => ({
        ...(binding(name, `${id}-nothing`) as JsonObject),
        metadata: { name, labels: SCOPE },
      }),
    },
  ];
  for (const k of kinds)
    for (const dryRun of [false, true]) {
      const name = uniq(`${id}-${k.resource.slice(0, 6)}`);
      const base = `/apis/${AR}/v1/${k.resource}`;
      const req = (op: AdmissionOperation, object: JsonObject | null, old: JsonObject | null) => ({
        group: AR,
        version: "v1",
        resource: k.resource,
        subresource: "",
        kind: { group: AR, version: "v1", kind: k.kind },
        operation: op,
        name,
        object,
        oldObject: old,
      });
      const body = k.body(name);
      preps.push(async () => ({
        label: `create ${k.resource} ${name}${dryRun ? " dry-run" : ""}`,
        method: "POST",
        path: base,
        body,
        dryRun,
        request: req("CREATE", body, null),
      }));
      if (dryRun) continue;
      preps.push(async () => {
        const old = await getJson(`${base}/${name}`);
        const meta = old.metadata as JsonObject;
        const next = { ...old, metadata: { ...meta, annotations: { touched: "1" } } };
        return {
          label: `update ${k.resource} ${name}`,
          method: "PUT",
          path: `${base}/${name}`,
          body: next,
          dryRun: false,
          request: req("UPDATE", next, old),
        };
      });
      preps.push(async () => {
        const old = await getJson(`${base}/${name}`);
        return {
          label: `delete ${k.resource} ${name}`,
          method: "DELETE",
          path: `${base}/${name}`,
          dryRun: false,
          request: req("DELETE", null, old),
        };
      });
    }
  return preps;
}

// ── setup ────────────────────────────────────────────────────────────────────────────────────

/**
 * Static manifests are on by default from 1.37 (ManifestBasedAdmissionControlConfig): on an older
 * minor's control plane (npm run test:versions) there is nothing to compare.
 */
const staticManifestsServed = servesStaticManifests(stackMinor());

beforeAll(async () => {
  stack = readStack();
  ca = readFileSync(stack.caFile);
  if (!staticManifestsServed) return;
  hooks = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
  for (const h of HOOKS)
    hooks.program(
      h.short,
      h.phase === "mutating"
        ? { type: "patch", patch: annotationPatch(`portcullis.test/mutated-${h.short}`) }
        : { type: "allow" },
    );
  await kubeOk("POST", "/api/v1/namespaces", { metadata: { name: NS } });
  // The static set first, each plugin waited on through the hash the apiserver reports.
  const objects = staticObjects();
  for (const plugin of Object.keys(objects) as ManifestPluginName[]) {
    const hash = writeStaticManifests(stack, plugin, FILE, objects[plugin]);
    await waitForManifestSet(stack, plugin, hash);
  }
  await kubeOk("POST", `/apis/${AR}/v1/mutatingwebhookconfigurations`, {
    metadata: { name: API },
    webhooks: [webhook("am1", true)],
  });
  await kubeOk("POST", `/apis/${AR}/v1/validatingwebhookconfigurations`, {
    metadata: { name: API },
    webhooks: [webhook("av1", false)],
  });
  await kubeOk("POST", `/apis/${AR}/v1/validatingadmissionpolicies`, auditedPolicy(API));
  await kubeOk("POST", `/apis/${AR}/v1/validatingadmissionpolicybindings`, binding(API, API));

  // Predict from the cluster's objects and the directories as the dashboard reads them.
  const client = new KubeClient(
    stack.contexts.admin,
    kubeConfigFor(stack.contexts.admin, [stack.kubeconfig]),
  );
  const manifests = (Object.keys(manifestDirs(stack)) as ManifestPluginName[]).map((plugin) =>
    readManifestDir({ dir: manifestDirs(stack)[plugin], plugin }),
  );
  const state = await readAdmissionState(client, { manifests });
  expect(state.notices).toEqual([]);
  compiled = compileSnapshot(state.snapshot);

  // Wait until the apiserver's informers hold the API-based hooks and policy: a dry-run create
  // reaches both API webhooks, and its audit event carries the API policy's annotation.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const from = hooks.nextSeq();
    const probe = await kube("POST", `/api/v1/namespaces/${NS}/configmaps?dryRun=All`, {
      metadata: { name: "probe", labels: SCOPE },
    });
    const seen = hooks
      .calls()
      .filter((c) => c.seq >= from)
      .map((c) => c.hook);
    const auditID = String(probe.headers["audit-id"] ?? "");
    const annotations = (await auditAnnotations([auditID], 5_000)).get(auditID) ?? {};
    if (seen.includes("am1") && seen.includes("av1") && annotations[`${API}/seen`] === "yes") break;
    if (Date.now() > deadline)
      throw new Error(`API hooks never active: ${probe.status} ${probe.body}`);
  }
}, 180_000);

afterAll(async () => {
  for (const plugin of Object.keys(stack?.admissionManifests ?? {}) as ManifestPluginName[]) {
    const hash = writeStaticManifests(stack, plugin, FILE, []);
    await waitForManifestSet(stack, plugin, hash);
  }
  await kube("DELETE", `/apis/${AR}/v1/validatingadmissionpolicybindings/${API}`);
  await kube("DELETE", `/apis/${AR}/v1/validatingadmissionpolicies/${API}`);
  await kube("DELETE", `/apis/${AR}/v1/mutatingwebhookconfigurations/${API}`);
  await kube("DELETE", `/apis/${AR}/v1/validatingwebhookconfigurations/${API}`);
  await kube("DELETE", `/api/v1/namespaces/${NS}`);
  await hooks?.close();
}, 120_000);

// ── comparison ───────────────────────────────────────────────────────────────────────────────

function shortOf(webhookName: string): string | undefined {
  return webhookName.endsWith(SUFFIX) ? webhookName.slice(0, -SUFFIX.length) : undefined;
}

function belongsTo(call: RecordedCall, a: Action): boolean {
  const r = call.request;
  return (
    r.operation === a.request.operation &&
    r.resource.resource === a.request.resource &&
    (r.name ?? "") === (a.request.name ?? "")
  );
}

/**
 * The ResponseComplete audit annotations of the given requests, read from the audit log until
 * every one is there (the log is written as requests complete) or `timeoutMs` passes.
 */
async function auditAnnotations(
  auditIDs: readonly string[],
  timeoutMs = 30_000,
): Promise<Map<string, Record<string, string>>> {
  const want = new Set(auditIDs);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const out = new Map<string, Record<string, string>>();
    for (const f of auditLogFiles(stack))
      for (const line of readFileSync(f, "utf8").split("\n")) {
        if (!line.includes(id)) continue;
        const e = JSON.parse(line) as {
          auditID: string;
          stage: string;
          annotations?: Record<string, string>;
        };
        if (want.has(e.auditID) && e.stage === "ResponseComplete")
          out.set(e.auditID, e.annotations ?? {});
      }
    if (out.size === want.size || Date.now() > deadline) return out;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Mutating webhook calls from the audit, as `configuration/short@round`, in (round, index) order. */
function auditMutating(annotations: Record<string, string>): string[] {
  const rows: Array<{ round: number; index: number; text: string }> = [];
  for (const [k, v] of Object.entries(annotations)) {
    const m = /^mutation\.webhook\.admission\.k8s\.io\/round_(\d+)_index_(\d+)$/.exec(k);
    if (!m) continue;
    const parsed = JSON.parse(v) as { configuration: string; webhook: string };
    const short = shortOf(parsed.webhook);
    if (short)
      rows.push({
        round: Number(m[1]),
        index: Number(m[2]),
        text: `${parsed.configuration}/${short}@${m[1]}`,
      });
  }
  return rows.sort((a, b) => a.round - b.round || a.index - b.index).map((r) => r.text);
}

/** The predicted mutating sequence as the audit names it (configuration, short, round). */
function predictedAuditMutating(expected: readonly string[], prediction: Prediction): string[] {
  const configOf = new Map<string, string>();
  for (const c of prediction.calls) {
    const s = shortOf(c.hook.name);
    if (s) configOf.set(s, c.hook.configuration);
  }
  return expected.map((e) => {
    const [short] = e.split("@");
    return `${configOf.get(short ?? "") ?? "?"}/${e}`;
  });
}

interface Outcome {
  label: string;
  status: number;
  auditID: string;
  expectedMutating: string[];
  actualMutating: string[];
  expectedAuditMutating: string[];
  expectedValidating: string[];
  actualValidating: string[];
  expectedPolicies: string[];
  expectedStaticMap: boolean;
  actualStaticMap: boolean;
  staticCalls: number;
  /** The apiserver admitted the request more than once, calling different hooks. */
  passesDiffer: boolean;
}

test.skipIf(!staticManifestsServed)(
  "static hooks and policies: predict agrees with the apiserver's calls",
  async () => {
    const preps = plan();
    const outcomes: Outcome[] = [];
    for (const prep of preps) {
      // An update may meet a conflict (the policy status controller writes the policies it
      // reads): read the stored object again and resend, as any client would.
      let a: Action;
      let prediction: Prediction;
      let from: number;
      let res: HttpsJsonResponse;
      let attempt = 0;
      do {
        a = await prep();
        const request: AdmissionRequest = {
          ...a.request,
          dryRun: a.dryRun,
          userInfo: USER,
          ...(a.request.namespace
            ? { namespaceObject: { labels: { "kubernetes.io/metadata.name": NS } } }
            : {}),
        };
        prediction = predictCompiled(request, compiled);
        from = hooks.nextSeq();
        res = await kube(a.method, a.dryRun ? `${a.path}?dryRun=All` : a.path, a.body);
      } while (res.status === 409 && a.method === "PUT" && ++attempt < 5);
      const all = hooks.calls().filter((c) => c.seq >= from && belongsTo(c, a));
      // A write that meets a conflict inside the apiserver (the policy status controller writes
      // policies) is retried there and admitted again: split the calls into admission passes (a
      // mutating call after a validating one starts a new one) and hold the last to the prediction.
      const passes: RecordedCall[][] = [[]];
      for (const c of all) {
        const current = passes[passes.length - 1] as RecordedCall[];
        if (
          phaseOf.get(c.hook) === "mutating" &&
          current.some((x) => phaseOf.get(x.hook) === "validating")
        )
          passes.push([c]);
        else current.push(c);
      }
      const calls = passes[passes.length - 1] as RecordedCall[];
      const rounds = mutatingRounds(
        calls.filter((c) => phaseOf.get(c.hook) === "mutating"),
        prediction,
        shortOf,
      );
      const returned = (res.status < 300 && res.body ? JSON.parse(res.body) : {}) as {
        metadata?: { annotations?: Record<string, string> };
      };
      outcomes.push({
        label: a.label,
        status: res.status,
        auditID: String(res.headers["audit-id"] ?? ""),
        expectedMutating: rounds.expected,
        actualMutating: rounds.actual,
        expectedAuditMutating: predictedAuditMutating(rounds.expected, prediction),
        expectedValidating: prediction.calls
          .filter((c) => c.stage === "validating-webhook" && shortOf(c.hook.name) !== undefined)
          .map((c) => shortOf(c.hook.name) as string)
          .sort(),
        actualValidating: calls
          .filter((c) => phaseOf.get(c.hook) === "validating")
          .map((c) => c.hook)
          .sort(),
        expectedPolicies: prediction.calls
          .filter((c) => c.stage === "validating-policy" && c.hook.configuration.startsWith(id))
          .map((c) => c.hook.configuration)
          .sort(),
        expectedStaticMap: prediction.calls.some(
          (c) => c.stage === "mutating-policy" && c.hook.configuration === STATIC,
        ),
        actualStaticMap: returned.metadata?.annotations?.[STATIC_MAP_ANNOTATION] === "1",
        staticCalls: calls.filter((c) => c.hook.startsWith("s")).length,
        passesDiffer: new Set(passes.map((p) => p.map((c) => c.hook).join(","))).size > 1,
      });
    }

    const audit = await auditAnnotations(outcomes.map((o) => o.auditID));
    const disagreements: Array<Outcome & { problems: string[] }> = [];
    for (const o of outcomes) {
      const problems: string[] = [];
      if (o.status >= 300) problems.push(`request failed: ${o.status}`);
      if (o.passesDiffer) problems.push("retried admission passes called different hooks");
      if (JSON.stringify(o.expectedMutating) !== JSON.stringify(o.actualMutating))
        problems.push("mutating calls differ");
      if (JSON.stringify(o.expectedValidating) !== JSON.stringify(o.actualValidating))
        problems.push("validating calls differ");
      const annotations = audit.get(o.auditID);
      if (!annotations) problems.push("no audit event");
      else {
        if (JSON.stringify(auditMutating(annotations)) !== JSON.stringify(o.expectedAuditMutating))
          problems.push(
            `audit mutation annotations differ: ${JSON.stringify(auditMutating(annotations))}`,
          );
        const policies = Object.keys(annotations)
          .filter((k) => k.endsWith("/seen") && k.startsWith(id))
          .map((k) => k.slice(0, -"/seen".length))
          .sort();
        if (JSON.stringify(policies) !== JSON.stringify(o.expectedPolicies))
          problems.push(`policies differ: evaluated ${JSON.stringify(policies)}`);
      }
      // A DELETE returns a Status (or the object as deleted): the mutation shows on writes only.
      if (!o.label.startsWith("delete") && o.expectedStaticMap !== o.actualStaticMap)
        problems.push("static mutating policy differs");
      if (problems.length > 0) disagreements.push({ ...o, problems });
    }
    const report = path.join(os.tmpdir(), "portcullis-static-manifests-oracle.json");
    writeFileSync(report, JSON.stringify(disagreements, null, 2));
    const configWrites = outcomes.filter((o) => !o.label.includes("configmap"));
    console.log(
      `static manifests oracle: ${outcomes.length - disagreements.length}/${outcomes.length} agree (${outcomes.filter((o) => o.staticCalls > 0).length} reached static webhooks, ${configWrites.length} admission configuration writes; disagreements in ${report})`,
    );
    for (const d of disagreements.slice(0, 8)) console.log(JSON.stringify(d));
    // The oracle must exercise what it is for: static webhooks on configuration writes.
    expect(configWrites.filter((o) => o.staticCalls > 0).length).toBeGreaterThan(0);
    expect(disagreements).toEqual([]);
  },
  600_000,
);
