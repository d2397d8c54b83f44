/**
 * Randomized policy matching oracle: admission policies and bindings nobody wrote by hand,
 * validating and mutating. From each fixed seed, random policies get matchConstraints (rules
 * with resourceNames, excludeResourceRules, matchPolicy, namespace and object selectors),
 * matchConditions, a failurePolicy and sometimes a paramKind (a namespaced custom resource, or
 * Namespaces); their bindings get random matchResources and paramRefs (by name or selector, in
 * the request's namespace or a fixed one, parameterNotFoundAction Allow or Deny). A validating
 * policy has one validation that is always false, bound with validationActions [Warn], so each
 * evaluation the apiserver makes — one per param object — comes back as a warning naming the
 * policy, the binding and the param; a mutating policy adds one annotation naming itself and the
 * param, seen in the object the dry run answers with. Random dry-run requests
 * (test/oracle/random-requests.ts) then go to the real apiserver: the evaluations and mutations
 * must be the ones predict says, and a request it rejects (params missing with Deny, a namespaced
 * paramRef for a cluster-scoped request, a failing matchCondition or patch, under failurePolicy
 * Fail) must be one the prediction rejects, with a status and message it gives.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { readStack, stackMinor, type StackInfo } from "../../../cluster/harness/stack";
import { behaviourOf } from "@/lib/admission/model/kubernetes-minor";
import { httpsRequest, type HttpsJsonResponse } from "../../../cluster/https-json";
import { KubeClient } from "@/server/kube/client";
import { kubeConfigFor } from "@/server/kube/config";
import { readAdmissionState } from "@/server/kube/admission-state";
import { compileSnapshot, type CompiledSnapshot } from "@/lib/admission/matching/compile";
import { predictCompiled, type Prediction } from "@/lib/admission/prediction/predict";
import type { JsonObject } from "@/lib/admission/model/request";
import { Rand, RandomRequests } from "../../../test/oracle/random-requests";
import { warningTexts } from "../../../test/oracle/server-verdict";

/**
 * Fixed, so a failure reproduces (PORTCULLIS_ORACLE_SEED tries another). Seeds 1 to 16 all agree;
 * these reach the most: 4 and 13 reject tens of requests, 7 has matchConditions that fail, 15
 * reaches the policies on most requests. (Drawn with the random source before its fix, see Rand,
 * seeds found the disagreements fixed in match.ts, request.ts and predict.ts, and the DELETE,
 * Scale and Namespace-label cases that unit tests in predict.test.ts keep.)
 */
const SEEDS = process.env.PORTCULLIS_ORACLE_SEED
  ? [Number(process.env.PORTCULLIS_ORACLE_SEED)]
  : [4, 7, 13, 15];
const POLICY_COUNT = 16;
const REQUESTS = 300;
const runId = Date.now().toString(36);
const USER = { username: "admin", groups: ["system:masters", "system:authenticated"] };
const GROUP = "/apis/admissionregistration.k8s.io/v1";
/**
 * Where the stack's minor serves MutatingAdmissionPolicy and its binding: v1 from 1.36, v1beta1
 * on 1.35 (npm run test:versions), as the model has it.
 */
const MAP_GROUP = `/apis/admissionregistration.k8s.io/${behaviourOf(stackMinor()).mutatingAdmissionPolicyVersions[0]}`;
const groupOf = (type: PolicyType) => (type === "mutating" ? MAP_GROUP : GROUP);
/** Below the apiserver's 4,096 characters of warnings a request, after which it drops some. */
const WARNING_BUDGET = 3_800;
/** The label every namespace of a run carries: cluster-scoped params select by it. */
const SET_LABEL = "portcullis.test/param-set";

let id = "";
let rand = new Rand(0);
let requests: RandomRequests;
let stack: StackInfo;
let ca: Buffer;
let compiled: CompiledSnapshot;

type ParamKind = "Custom" | "Namespace";
type Obj = Record<string, unknown>;
type PolicyType = "validating" | "mutating";
interface PolicyDef {
  type: PolicyType;
  name: string;
  paramKind: ParamKind | undefined;
  spec: Obj;
  bindings: Array<{ name: string; spec: Obj }>;
}
let POLICIES: PolicyDef[] = [];

function kube(method: string, p: string, body?: unknown): Promise<HttpsJsonResponse> {
  return httpsRequest(`${stack.server}${p}`, { method, body, ca, token: stack.tokens.admin });
}

async function kubeOk(method: string, p: string, body?: unknown): Promise<JsonObject> {
  const res = await kube(method, p, body);
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${res.body}`);
  return JSON.parse(res.body) as JsonObject;
}

const NOT_THE_PROBE = { key: "probe", operator: "DoesNotExist" };

/** A random objectSelector that also leaves out the probe object. */
function withoutProbe(sel: JsonObject | undefined): Obj {
  const terms = (sel?.matchExpressions as unknown[] | undefined) ?? [];
  return { ...sel, matchExpressions: [...terms, NOT_THE_PROBE] };
}

/** Rules, some naming the objects they match (resourceNames). */
function namedRules(): Array<Record<string, unknown>> {
  return requests
    .rules()
    .map((r) =>
      rand.next() < 0.2 ? { ...r, resourceNames: rand.some(["kfixed", "k1", "pa"]) } : r,
    );
}

/** Selectors, match rules and policy of a policy's matchConstraints or a binding's matchResources. */
function matchResources(ofPolicy: boolean): Obj {
  const m: Obj = {};
  if (ofPolicy || rand.next() < 0.5) m.resourceRules = namedRules();
  if (rand.next() < 0.3) m.excludeResourceRules = namedRules();
  // Every filter stacks: half of them select everything, or no policy would be reached.
  const ns = rand.next() < 0.5 ? undefined : rand.pick(requests.selectors());
  if (ns !== undefined) m.namespaceSelector = ns;
  const obj = rand.next() < 0.5 ? undefined : rand.pick(requests.selectors().slice(0, 4));
  if (obj !== undefined) m.objectSelector = obj;
  // No random policy matches the probe, so none can fail it (random requests carry no such label).
  if (ofPolicy) m.objectSelector = withoutProbe(obj);
  const matchPolicy = rand.pick([undefined, "Exact", "Equivalent"]);
  if (matchPolicy) m.matchPolicy = matchPolicy;
  return m;
}

function paramRef(kind: ParamKind): Obj {
  const ref: Obj = { parameterNotFoundAction: rand.pick(["Allow", "Deny"]) };
  if (kind === "Custom") {
    if (rand.next() < 0.5) ref.name = rand.pick(["pa", "pb", "missing"]);
    else
      ref.selector = rand.pick([
        {},
        { matchLabels: { role: "x" } },
        { matchExpressions: [{ key: "role", operator: "Exists" }] },
      ]);
    const ns = rand.pick([undefined, undefined, requests.nsName("a"), requests.nsName("c")]);
    if (ns) ref.namespace = ns;
  } else {
    if (rand.next() < 0.5) ref.name = rand.pick([requests.nsName("a"), `${id}-missing`]);
    else
      ref.selector = rand.pick([
        { matchLabels: { [SET_LABEL]: id } },
        { matchLabels: { [SET_LABEL]: id, team: "a" } },
      ]);
    if (rand.next() < 0.15) ref.namespace = requests.nsName("a");
  }
  return ref;
}

/**
 * Namespaced params are objects of a custom resource of the run's own: the apiserver's informer
 * for a built-in paramKind (ConfigMap) stops for good once no binding uses it (kubernetes#130887),
 * so a later run would see a stale cache. Cluster-scoped params are Namespaces, whose informer the
 * apiserver keeps running for itself.
 */
const PARAM_GROUP = `r${runId}.oracle.portcullis.test`;
const PARAM_KINDS: Record<ParamKind, Obj> = {
  Custom: { apiVersion: `${PARAM_GROUP}/v1`, kind: "OracleParam" },
  Namespace: { apiVersion: "v1", kind: "Namespace" },
};

/** The message each evaluation warns with: the param's name, or none. */
const MESSAGE_WITH_PARAMS = "params == null ? 'none' : string(params.metadata.name)";

/** The annotation a mutating policy's evaluation adds: the policy and the param it ran with. */
const ANNOTATION = "m.portcullis.test/";
const annotationOf = (policy: string, param: string) =>
  `${ANNOTATION}${policy.slice(id.length + 1)}.${param}`;

/** A mutating policy's one mutation: an annotation naming it and its param (or none). */
function mutation(name: string, kind: ParamKind | undefined): Obj {
  const param = kind ? MESSAGE_WITH_PARAMS : "'none'";
  const key = `'${annotationOf(name, "")}' + (${param})`;
  return {
    patchType: "ApplyConfiguration",
    applyConfiguration: {
      expression: `Object{metadata: Object.metadata{annotations: {${key}: 'x'}}}`,
    },
  };
}

/** A policy's spec, validating (one validation, always false) or mutating (one annotation). */
function policySpec(
  type: PolicyType,
  name: string,
  kind: ParamKind | undefined,
  constraints: Obj,
  failurePolicy: string,
): Obj {
  const spec: Obj = { failurePolicy, matchConstraints: constraints };
  if (kind) spec.paramKind = PARAM_KINDS[kind];
  if (type === "validating")
    spec.validations = [
      kind
        ? { expression: "false", messageExpression: MESSAGE_WITH_PARAMS }
        : { expression: "false", message: "none" },
    ];
  else spec.mutations = [mutation(name, kind)];
  return spec;
}

/** Rules a mutating policy may have: it is never asked about DELETE. */
function withoutDelete(m: Obj): Obj {
  const rules = (key: string) =>
    (m[key] as Array<{ operations: string[] }> | undefined)?.map((r) => {
      const ops = r.operations.filter((o) => o !== "DELETE");
      return { ...r, operations: ops.length > 0 ? ops : ["CREATE"] };
    });
  const out: Obj = { ...m };
  for (const key of ["resourceRules", "excludeResourceRules"]) if (m[key]) out[key] = rules(key);
  return out;
}

function randomPolicies(): PolicyDef[] {
  return Array.from({ length: POLICY_COUNT }, (_, i) => {
    const name = `${id}-p${i}`;
    const paramKind = rand.pick<ParamKind | undefined>([
      undefined,
      undefined,
      "Custom",
      "Custom",
      "Namespace",
    ]);
    const type: PolicyType = rand.next() < 0.35 ? "mutating" : "validating";
    const constraints = matchResources(true);
    const spec = policySpec(
      type,
      name,
      paramKind,
      type === "mutating" ? withoutDelete(constraints) : constraints,
      rand.pick(["Fail", "Ignore"]),
    );
    if (type === "mutating") spec.reinvocationPolicy = rand.pick(["Never", "IfNeeded"]);
    // Conditions that fail to evaluate on some requests (a request without a subresource has no
    // subResource; a DELETE has no object) come up more often than among the shared ones.
    const draw = rand.next();
    const condition =
      draw < 0.45
        ? undefined
        : draw < 0.6
          ? rand.pick(["request.subResource == ''", "object.metadata.name.startsWith('k')"])
          : rand.pick(requests.conditions());
    if (condition) spec.matchConditions = [{ name: "c", expression: condition }];
    const bindings = Array.from({ length: rand.pick([0, 1, 1, 1, 2]) }, (_, j) => {
      const b: Obj = { policyName: name };
      if (type === "validating") b.validationActions = ["Warn"];
      if (rand.next() < 0.3) {
        const m = matchResources(false);
        b.matchResources = type === "mutating" ? withoutDelete(m) : m;
      }
      if (paramKind ? rand.next() < 0.85 : rand.next() < 0.15)
        b.paramRef = paramRef(paramKind ?? "Custom");
      return { name: `${name}-b${j}`, spec: b };
    });
    return { type, name, paramKind, spec, bindings };
  });
}

/**
 * Policies matching only the probe (a dry-run ConfigMap create no random policy matches): once
 * the apiserver reports all six — validating and mutating, one without params and one per param
 * kind, by selector — its policy and binding caches hold everything created before them, and its
 * param caches are filled.
 */
function sentinels(): PolicyDef[] {
  const constraints = {
    resourceRules: [
      { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
    ],
    objectSelector: { matchLabels: { probe: id } },
  };
  const def = (
    n: string,
    type: PolicyType,
    kind: ParamKind | undefined,
    ref: Obj | undefined,
  ): PolicyDef => {
    const spec = policySpec(type, `${id}-s${n}`, kind, constraints, "Fail");
    if (type === "mutating") spec.reinvocationPolicy = "Never";
    return {
      type,
      name: `${id}-s${n}`,
      paramKind: kind,
      spec,
      bindings: [
        {
          name: `${id}-s${n}-b`,
          spec: {
            policyName: `${id}-s${n}`,
            ...(type === "validating" ? { validationActions: ["Warn"] } : {}),
            ...(ref ? { paramRef: ref } : {}),
          },
        },
      ],
    };
  };
  const custom = {
    selector: { matchLabels: { role: "x" } },
    namespace: requests.nsName("a"),
    parameterNotFoundAction: "Deny",
  };
  const namespaces = {
    selector: { matchLabels: { [SET_LABEL]: id, team: "a" } },
    parameterNotFoundAction: "Deny",
  };
  return [
    def("0", "validating", undefined, undefined),
    def("1", "validating", "Custom", custom),
    def("2", "validating", "Namespace", namespaces),
    def("3", "mutating", undefined, undefined),
    def("4", "mutating", "Custom", custom),
    def("5", "mutating", "Namespace", namespaces),
  ];
}

const COLLECTIONS: Record<PolicyType, string> = {
  validating: "validatingadmissionpolicies",
  mutating: "mutatingadmissionpolicies",
};

const warningOf = (policy: string, binding: string, message: string) =>
  `Validation failed for ValidatingAdmissionPolicy '${policy}' with binding '${binding}': ${message}`;

const CRD_PATH = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/oracleparams.${PARAM_GROUP}`;

beforeAll(async () => {
  stack = readStack();
  ca = readFileSync(stack.caFile);
  await kubeOk("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
    metadata: { name: `oracleparams.${PARAM_GROUP}` },
    spec: {
      group: PARAM_GROUP,
      scope: "Namespaced",
      names: { plural: "oracleparams", singular: "oracleparam", kind: "OracleParam" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          },
        },
      ],
    },
  });
  // Served once discovery lists it (the predictor resolves paramKinds through discovery).
  const deadline = Date.now() + 30_000;
  while ((await kube("GET", `/apis/${PARAM_GROUP}/v1`)).status !== 200) {
    if (Date.now() > deadline) throw new Error(`${PARAM_GROUP}/v1 is never served`);
    await new Promise((r) => setTimeout(r, 200));
  }
});

async function setUp(seed: number): Promise<void> {
  rand = new Rand(seed);
  id = `pr${runId}s${seed}`;
  requests = new RandomRequests(rand, id, kubeOk);
  POLICIES = randomPolicies();
  await requests.createNamespaces({ [SET_LABEL]: id });
  // Param objects: two in a, one in b, none in c.
  for (const [ns, name, role] of [
    ["a", "pa", "x"],
    ["a", "pb", "y"],
    ["b", "pa", "x"],
  ] as const)
    await kubeOk("POST", `/apis/${PARAM_GROUP}/v1/namespaces/${requests.nsName(ns)}/oracleparams`, {
      apiVersion: `${PARAM_GROUP}/v1`,
      kind: "OracleParam",
      metadata: { name, labels: { role } },
    });
  const all = [...POLICIES, ...sentinels()];
  for (const p of all)
    await kubeOk("POST", `${groupOf(p.type)}/${COLLECTIONS[p.type]}`, {
      metadata: { name: p.name },
      spec: p.spec,
    });
  for (const p of all)
    for (const b of p.bindings)
      await kubeOk(
        "POST",
        `${groupOf(p.type)}/${COLLECTIONS[p.type].replace(/ies$/, "ybindings")}`,
        {
          metadata: { name: b.name },
          spec: b.spec,
        },
      );
  await untilSentinels("all");
  const client = new KubeClient(
    stack.contexts.admin,
    kubeConfigFor(stack.contexts.admin, [stack.kubeconfig]),
  );
  compiled = compileSnapshot((await readAdmissionState(client)).snapshot);
}

/**
 * Probes (a dry-run ConfigMap create only the sentinels match) until the apiserver applies
 * every sentinel, or none: sentinels are created after everything else and deleted after it, so
 * then its caches hold all of this seed's policies, or none of them.
 */
async function untilSentinels(which: "all" | "none"): Promise<void> {
  const warnings = [
    warningOf(`${id}-s0`, `${id}-s0-b`, "none"),
    warningOf(`${id}-s1`, `${id}-s1-b`, "pa"),
    warningOf(`${id}-s2`, `${id}-s2-b`, requests.nsName("a")),
  ];
  const annotations = [
    annotationOf(`${id}-s3`, "none"),
    annotationOf(`${id}-s4`, "pa"),
    annotationOf(`${id}-s5`, requests.nsName("a")),
  ];
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await kube(
      "POST",
      `/api/v1/namespaces/${requests.nsName("c")}/configmaps?dryRun=All`,
      { metadata: { name: "probe", labels: { probe: id } } },
    );
    const got = warningTexts(res);
    const keys = res.status < 300 ? Object.keys(annotationsOf(JSON.parse(res.body))) : [];
    const seen = [
      ...warnings.filter((w) => got.includes(w)),
      ...annotations.filter((k) => keys.includes(k)),
    ];
    if (
      which === "all"
        ? seen.length === 6 && res.status < 300
        : seen.length === 0 && res.status < 300
    )
      return;
    if (Date.now() > deadline)
      throw new Error(
        `the apiserver never applied ${which} of the sentinels: ${res.status} ${JSON.stringify(got)} ${JSON.stringify(keys)} ${res.body.slice(0, 300)}`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function tearDown(): Promise<void> {
  for (const p of [...POLICIES, ...sentinels()]) {
    const collection = COLLECTIONS[p.type];
    for (const b of p.bindings)
      await kube(
        "DELETE",
        `${groupOf(p.type)}/${collection.replace(/ies$/, "ybindings")}/${b.name}`,
      );
    await kube("DELETE", `${groupOf(p.type)}/${collection}/${p.name}`);
  }
  // The next seed's objects are created only once the apiserver has let go of this seed's policies.
  await untilSentinels("none");
  await requests.deleteNamespaces(kube);
}

afterAll(async () => {
  await kube("DELETE", CRD_PATH);
});

/** An object's annotations. */
function annotationsOf(obj: unknown): Record<string, string> {
  const meta = (obj as { metadata?: { annotations?: Record<string, string> } } | null)?.metadata;
  return meta?.annotations ?? {};
}

/**
 * The annotations the prediction says the random mutating policies add: one per evaluation (round
 * 0; a reinvocation adds the same one again), sorted.
 */
function predictedAnnotations(prediction: Prediction): string[] {
  const ours = new Set(POLICIES.map((p) => p.name));
  const out = new Set<string>();
  for (const c of prediction.calls) {
    if (c.stage !== "mutating-policy" || c.round !== 0 || !ours.has(c.hook.configuration)) continue;
    for (const p of c.params?.map((n) => n.slice(n.lastIndexOf("/") + 1)) ?? ["none"])
      out.add(annotationOf(c.hook.configuration, p));
  }
  return [...out].sort();
}

/** A rejection's message without the object's name. */
const forbidden = (message: string) => message.slice(message.indexOf(" is forbidden: "));

/** The warnings the prediction says the random policies give, sorted. */
function predictedWarnings(prediction: Prediction): string[] {
  const kindOf = new Map(POLICIES.map((p) => [p.name, p.paramKind]));
  const out: string[] = [];
  for (const c of prediction.calls) {
    if (c.stage !== "validating-policy" || !kindOf.has(c.hook.configuration)) continue;
    // Without a paramRef (or a paramKind) one evaluation, params null. Failed matchConditions
    // are the evaluation's one decision.
    const params = c.params?.map((n) => n.slice(n.lastIndexOf("/") + 1)) ?? ["none"];
    for (const p of params)
      out.push(warningOf(c.hook.configuration, c.hook.name, c.conditionError ?? p));
  }
  // The apiserver drops a repeated warning.
  return [...new Set(out)].sort();
}

test.each(SEEDS)(
  "randomized policy matching oracle, seed %i: predicted evaluations agree with the apiserver's",
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
  const ours = new Set(POLICIES.map((p) => p.name));
  const problems: string[] = [];
  let decided = 0;
  let reached = 0;
  let tooMany = 0;
  let rejected = 0;
  let conditionErrors = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const a = await requests.action(i);
    const r = a.request;
    const prediction = predictCompiled(await requests.admissionRequest(r, USER), compiled);
    const res = await kube(a.method, `${a.path}?dryRun=All`, a.body);
    if (prediction.indeterminate.some((x) => ours.has(x.hook.configuration))) continue;
    const all = warningTexts(res);
    if (all.join("").length > WARNING_BUDGET) {
      tooMany++;
      continue;
    }
    decided++;
    const actual = all.filter((w) => POLICIES.some((p) => w.includes(`Policy '${p.name}'`))).sort();
    // What mutating policies did shows in the object a create or update answers with (not a
    // subresource's: its strategy keeps the stored metadata).
    let mutated: string[] = [];
    if (res.status < 300 && a.method !== "DELETE" && r.subresource === "") {
      mutated = Object.keys(annotationsOf(JSON.parse(res.body)))
        .filter((k) => k.startsWith(ANNOTATION))
        .sort();
      // An update's body keeps what the stored object has (a policy of an earlier seed, still
      // applied while the apiserver caught up with its deletion, may have annotated it).
      const kept = Object.keys(annotationsOf(a.body ?? null)).filter((k) =>
        k.startsWith(ANNOTATION),
      );
      const predicted = [...new Set([...kept, ...predictedAnnotations(prediction)])].sort();
      if (JSON.stringify(mutated) !== JSON.stringify(predicted))
        problems.push(
          `${a.label}: mutations ${JSON.stringify(mutated)} ≠ predicted ${JSON.stringify(predicted)}`,
        );
    }
    if (actual.length > 0 || mutated.length > 0) reached++;
    if (res.status >= 300) rejected++;
    if (
      prediction.calls.some((c) => c.conditionError !== undefined && ours.has(c.hook.configuration))
    )
      conditionErrors++;
    const expected = predictedWarnings(prediction);
    if (JSON.stringify(actual) !== JSON.stringify(expected))
      problems.push(
        `${a.label}: evaluations ${JSON.stringify(actual)} ≠ predicted ${JSON.stringify(expected)}`,
      );
    const failure = prediction.failure && ours.has(prediction.failure.hook.configuration);
    if (res.status >= 300) {
      const message = (JSON.parse(res.body) as { message?: string }).message ?? "";
      if (!prediction.failure)
        problems.push(`${a.label}: rejected (${res.status} ${message}) but predicted admitted`);
      else {
        // Policies are evaluated in no fixed order: the apiserver names any of the failures.
        const same = (f: { status: number; message: string }) =>
          f.status === res.status &&
          // A generated name is not known before the request.
          (r.name ? f.message === message : forbidden(f.message) === forbidden(message));
        if (![prediction.failure, ...prediction.alsoFailing].some(same))
          problems.push(
            `${a.label}: rejected ${res.status} "${message}" but predicted ${prediction.failure.status} "${prediction.failure.message}" (or ${prediction.alsoFailing.length} more)`,
          );
      }
    } else if (failure)
      problems.push(`${a.label}: admitted but predicted rejected (${prediction.failure?.message})`);
  }
  console.log(
    `randomized policy matching oracle (seed ${seed}): ${decided}/${REQUESTS} decided, ${reached} reached the random policies (${conditionErrors} with failed matchConditions), ${rejected} rejected, ${tooMany} with too many warnings to compare, ${problems.length} disagreements`,
  );
  for (const p of problems.slice(0, 25)) console.log(`DISAGREE ${p}`);
  expect(problems).toEqual([]);
  const few = "this seed's random policies reach too few requests for the run to say much";
  expect(decided, few).toBeGreaterThan(0.85 * REQUESTS);
  expect(reached, few).toBeGreaterThan(0.1 * decided);
}
