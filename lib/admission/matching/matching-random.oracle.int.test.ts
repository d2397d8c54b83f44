/**
 * Randomized matching oracle: hooks and requests nobody wrote by hand. From each fixed seed, 32
 * recorder webhooks, mutating and validating, get random rules (operations, groups, versions,
 * resources and subresources, wildcards, scope), matchPolicy, namespace and object selectors,
 * matchConditions and reinvocation policies; then 400 random dry-run requests (creates, creates
 * with generateName, updates, deletes, deployments/scale, services/status, namespaces, pods) go to
 * the real apiserver. For each, the hooks it really called — validating as a set, mutating in
 * order with their reinvocation rounds — must be what predict + order say, and a request it
 * rejects must be one the prediction rejects. A prediction may leave a hook undecided (with its
 * reason) but must decide nearly all. It found the omitted request fields and the generated-name
 * cases that lib/admission/matching/condition-evaluator.ts and match.ts now handle.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { readStack, type StackInfo } from "../../../cluster/harness/stack";
import { startWebhookServer, type WebhookServer } from "../../../cluster/harness/webhook-server";
import { httpsRequest, type HttpsJsonResponse } from "../../../cluster/https-json";
import { KubeClient } from "@/server/kube/client";
import { kubeConfigFor } from "@/server/kube/config";
import { readAdmissionState } from "@/server/kube/admission-state";
import { compileSnapshot, type CompiledSnapshot } from "@/lib/admission/matching/compile";
import { predictCompiled } from "@/lib/admission/prediction/predict";
import {
  annotationPatch,
  mutatingRounds,
  predictedValidating,
} from "../../../test/oracle/admission-calls";
import type { JsonObject } from "@/lib/admission/model/request";
import { belongsTo, Rand, RandomRequests } from "../../../test/oracle/random-requests";

/**
 * Fixed, so a failure reproduces (PORTCULLIS_ORACLE_SEED tries another). Drawn with the random
 * source before its fix (see Rand), each of these found disagreements in the code before the
 * fixes named above (112, 29 and 42 of 400 requests).
 */
const SEEDS = process.env.PORTCULLIS_ORACLE_SEED
  ? [Number(process.env.PORTCULLIS_ORACLE_SEED)]
  : [3, 5, 12];
const HOOK_COUNT = 32;
const REQUESTS = 400;
const runId = Date.now().toString(36);
/** Per seed: names of its namespaces, configurations and hooks. */
let id = "";
let SUFFIX = "";
const USER = { username: "admin", groups: ["system:masters", "system:authenticated"] };

let rand = new Rand(0);
let requests: RandomRequests;

interface HookDef {
  short: string;
  phase: "mutating" | "validating";
  config: string;
  patch: boolean;
  spec: Record<string, unknown>;
}

/** Random hooks the apiserver accepts (a wildcard stands alone in its list). */
function randomHooks(): HookDef[] {
  return Array.from({ length: HOOK_COUNT }, (_, i) => {
    const rules = requests.rules();
    const spec: Record<string, unknown> = {
      rules,
      matchPolicy: rand.pick(["Exact", "Equivalent"]),
    };
    const ns = rand.pick(requests.selectors());
    if (ns !== undefined) spec.namespaceSelector = ns;
    const obj = rand.pick(requests.selectors().slice(0, 4));
    if (obj !== undefined) spec.objectSelector = obj;
    const condition = rand.pick(requests.conditions());
    if (condition) spec.matchConditions = [{ name: "c", expression: condition }];
    const phase = rand.next() < 0.5 ? "mutating" : "validating";
    if (phase === "mutating") spec.reinvocationPolicy = rand.pick(["Never", "IfNeeded"]);
    return {
      short: `${id}h${i}`,
      phase,
      config: `${phase === "mutating" ? "m" : "v"}${i % 3}`,
      patch: phase === "mutating" && rand.next() < 0.6,
      spec,
    };
  });
}

let stack: StackInfo;
let ca: Buffer;
let recorder: WebhookServer;
let compiled: CompiledSnapshot;
let HOOKS: HookDef[] = [];
let configs: string[] = [];

function kube(method: string, p: string, body?: unknown): Promise<HttpsJsonResponse> {
  return httpsRequest(`${stack.server}${p}`, { method, body, ca, token: stack.tokens.admin });
}

async function kubeOk(method: string, p: string, body?: unknown): Promise<JsonObject> {
  const res = await kube(method, p, body);
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${res.body}`);
  return JSON.parse(res.body) as JsonObject;
}

beforeAll(async () => {
  stack = readStack();
  ca = readFileSync(stack.caFile);
  recorder = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
});

/** Random hooks for `seed`, registered; returns once the apiserver calls them. */
async function setUp(seed: number): Promise<void> {
  rand = new Rand(seed);
  id = `mr${runId}s${seed}`;
  requests = new RandomRequests(rand, id, kubeOk);
  SUFFIX = `.${id}.portcullis.test`;
  HOOKS = randomHooks();
  configs = [...new Set(HOOKS.map((h) => `${h.phase}/${h.config}`))];

  for (const h of HOOKS)
    recorder.program(
      h.short,
      h.patch
        ? { type: "patch", patch: annotationPatch(`portcullis.test/mutated-${h.short}`) }
        : { type: "allow" },
    );
  await requests.createNamespaces();
  await kubeOk("POST", `/api/v1/namespaces/${requests.nsName("c")}/services`, {
    metadata: { name: "probe", labels: { probe: id } },
    spec: { ports: [{ port: 80 }] },
  });
  for (const key of configs) {
    const [phase, config] = key.split("/") as [string, string];
    recorder.program(`${id}sentinel-${config}`, { type: "allow" });
    const webhooks = HOOKS.filter((h) => `${h.phase}/${h.config}` === key).map((h) =>
      recorder.webhook(`${h.short}${SUFFIX}`, h.short, h.spec),
    );
    // One more hook per configuration, called only by the probe below: the configuration is in
    // the apiserver's informer once its sentinel is called.
    webhooks.push(
      recorder.webhook(`sentinel-${config}${SUFFIX}`, `${id}sentinel-${config}`, {
        // A status update: no random hook's condition fails on it (request.subResource is set).
        rules: [
          {
            operations: ["UPDATE"],
            apiGroups: [""],
            apiVersions: ["v1"],
            resources: ["services/status"],
          },
        ],
        objectSelector: { matchLabels: { probe: id } },
      }),
    );
    await kubeOk("POST", `/apis/admissionregistration.k8s.io/v1/${phase}webhookconfigurations`, {
      metadata: { name: `${id}-${config}` },
      webhooks,
    });
  }
  const client = new KubeClient(
    stack.contexts.admin,
    kubeConfigFor(stack.contexts.admin, [stack.kubeconfig]),
  );
  compiled = compileSnapshot((await readAdmissionState(client)).snapshot);
  const deadline = Date.now() + 20_000;
  let last = "";
  const sentinels = configs.map((k) => `${id}sentinel-${k.split("/")[1]}`);
  while (!sentinels.every((s) => recorder.calls(s).length > 0)) {
    if (Date.now() > deadline)
      throw new Error(
        `the apiserver never called every sentinel (${sentinels.filter((x) => recorder.calls(x).length === 0).join(", ")} not): ${last}`,
      );
    const probe = `/api/v1/namespaces/${requests.nsName("c")}/services/probe`;
    const res = await kube("PUT", `${probe}/status?dryRun=All`, await kubeOk("GET", probe));
    last = `${res.status} ${res.body.slice(0, 300)}`;
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function tearDown(): Promise<void> {
  for (const key of configs) {
    const [phase, config] = key.split("/") as [string, string];
    await kube(
      "DELETE",
      `/apis/admissionregistration.k8s.io/v1/${phase}webhookconfigurations/${id}-${config}`,
    );
  }
  await requests.deleteNamespaces(kube);
}

afterAll(async () => {
  await recorder?.close();
});

test.each(SEEDS)(
  "randomized matching oracle, seed %i: predictions agree with the apiserver's calls",
  async (seed) => {
    try {
      await setUp(seed);
      await compare(seed);
    } finally {
      await tearDown();
    }
  },
  300_000,
);

async function compare(seed: number): Promise<void> {
  const phaseOf = new Map(HOOKS.map((h) => [h.short, h.phase]));
  const short = (hookName: string) => hookName.slice(0, -SUFFIX.length);
  const ours = (hookName: string) => hookName.endsWith(SUFFIX) && phaseOf.has(short(hookName));
  const shortOf = (hookName: string) => (ours(hookName) ? short(hookName) : undefined);
  const problems: string[] = [];
  let decided = 0;
  let reached = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const a = await requests.action(i);
    const r = a.request;
    const prediction = predictCompiled(await requests.admissionRequest(r, USER), compiled);
    const from = recorder.nextSeq();
    const res = await kube(a.method, `${a.path}?dryRun=All`, a.body);
    const calls = recorder.calls().filter((c) => c.seq >= from && belongsTo(c, r));
    if (prediction.indeterminate.some((x) => ours(x.hook.name))) continue;
    decided++;
    if (calls.some((c) => phaseOf.has(c.hook))) reached++;
    if (res.status >= 300) {
      if (!prediction.failure)
        problems.push(`${a.label}: rejected (${res.status}) but predicted admitted`);
      continue;
    }
    const mutating = calls.filter((c) => phaseOf.get(c.hook) === "mutating");
    const { actual: actualMutating, expected: expectedMutating } = mutatingRounds(
      mutating,
      prediction,
      shortOf,
    );
    const actualValidating = [
      ...new Set(calls.filter((c) => phaseOf.get(c.hook) === "validating").map((c) => c.hook)),
    ].sort();
    const expectedValidating = predictedValidating(prediction, shortOf);
    if (prediction.failure) problems.push(`${a.label}: admitted but predicted rejected`);
    if (JSON.stringify(actualMutating) !== JSON.stringify(expectedMutating))
      problems.push(`${a.label}: mutating ${actualMutating} ≠ predicted ${expectedMutating}`);
    if (JSON.stringify(actualValidating) !== JSON.stringify(expectedValidating))
      problems.push(`${a.label}: validating ${actualValidating} ≠ predicted ${expectedValidating}`);
  }
  console.log(
    `randomized matching oracle (seed ${seed}): ${decided}/${REQUESTS} decided, ${reached} reached the random hooks, ${problems.length} disagreements`,
  );
  for (const p of problems.slice(0, 20)) console.log(`DISAGREE ${p}`);
  expect(problems).toEqual([]);
  const few = "this seed's random hooks reach too few requests for the run to say much";
  expect(decided, few).toBeGreaterThan(0.9 * REQUESTS);
  expect(reached, few).toBeGreaterThan(0.15 * decided);
}
