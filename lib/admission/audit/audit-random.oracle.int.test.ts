/**
 * Randomized decision oracle: what the decision feed reads from the apiserver's audit events set
 * against what really happened. From each fixed seed, recorder webhooks (mutating and validating,
 * failurePolicy Fail or Ignore, side effects None or NoneOnDryRun, reinvocation
 * Never or IfNeeded, a one-second timeout) and ValidatingAdmissionPolicies (every kind of
 * validationActions, the message quoting an annotation of the object) watch one namespace; then
 * random ConfigMap creates, updates and deletes, some dry runs, go to the real apiserver, each
 * carrying a plan: what each hook answers (allow, warn, patch, deny with a random code, reason
 * and hostile message, an HTTP error, sleep past the timeout) and which policies fail with which
 * hostile message. The recorder tells which hooks were called, in which order; the plan tells
 * what each answered; the apiserver's answer tells the status. Every decision parsed from the
 * request's audit event (read from the apiserver's audit log) must be the one that happened — the
 * hook, the round, the outcome, the message and the code — and nothing else; the same events
 * sent as one EventList must parse the same, and stored in a decision store (SQLite and
 * PostgreSQL) and read back, keep every field to the character. The apiserver's /metrics over the same requests, folded as the
 * Health page folds them, must count each hook's calls, rejections (by error type), fail-opens and
 * codes, and each binding's checks by enforcement action, as they happened.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  auditLogFiles,
  readStack,
  stackMinor,
  type StackInfo,
} from "../../../cluster/harness/stack";
import {
  startWebhookServer,
  type AdmissionRequest,
  type Behaviour,
  type WebhookServer,
} from "../../../cluster/harness/webhook-server";
import type { HttpsJsonResponse } from "../../../cluster/https-json";
import { adminKube, type AdminKube } from "../../../test/oracle/admin-kube";
import { oracleSeeds, Rand } from "../../../test/oracle/random-requests";
import { asGoReadsIt, goTrimSpace, hostileText } from "../../../test/oracle/hostile-text";
import {
  MAX_DECISION_TEXT,
  parseAuditEvent,
  type DecisionCall,
  type ParsedAuditEvent,
} from "./audit";
import { parseEventListText } from "./audit-batch";
import { behaviourOf as minorBehaviour } from "@/lib/admission/model/kubernetes-minor";
import {
  foldAdmissionMetrics,
  policyDelta,
  policyKey,
  webhookDelta,
  webhookKey,
  type AdmissionMetrics,
} from "../health/metrics";
import { SqliteDriver } from "@/server/decisions/sqlite";
import { PostgresDriver } from "@/server/decisions/postgres";
import { startPostgres } from "../../../test/postgres";
import { DecisionStore } from "@/server/decisions/store";

/** Fixed, so a failure reproduces (PORTCULLIS_ORACLE_SEED tries another). */
const SEEDS = oracleSeeds([1, 2, 3]);
const HOOK_COUNT = 8;
const POLICY_COUNT = 3;
const REQUESTS = 120;
const runId = Date.now().toString(36);
const PLAN = "portcullis.test/plan";
const DELETE_PLAN = "portcullis.test/delete-plan";
const failKey = (j: number) => `portcullis.test/fail-${j}`;
/** The annotation that makes the mutating policy's mutation fail (int() of its text). */
const MAP_FAIL = "portcullis.test/map-fail";
const mapName = () => `${id}-mp`;
const mapBinding = () => `${id}-mb`;

type Answer =
  | { t: "allow" }
  | { t: "warn"; w: string }
  | { t: "patch"; v: string }
  | { t: "deny"; m: string; c: number; r?: string }
  | { t: "error" }
  | { t: "sleep" };
type Plan = Record<string, Answer>;

interface Hook {
  short: string;
  name: string;
  phase: "mutating" | "validating";
  config: string;
  failurePolicy: "Fail" | "Ignore";
  sideEffects: "None" | "NoneOnDryRun";
  reinvocation: "Never" | "IfNeeded";
}

interface Policy {
  name: string;
  binding: string;
  actions: string[];
  /** The static message, used when messageExpression's result cannot be. */
  message: string;
}

let stack: StackInfo;
let recorder: WebhookServer;
let rand = new Rand(0);
let id = "";
let HOOKS: Hook[] = [];
let POLICIES: Policy[] = [];

let admin: AdminKube;
const kube = (method: string, p: string, body?: unknown) => admin.kube(method, p, body);
const kubeOk = (method: string, p: string, body?: unknown) => admin.kubeOk(method, p, body);

beforeAll(async () => {
  stack = readStack();
  admin = adminKube(stack);
  recorder = await startWebhookServer({ certFile: stack.caFile, keyFile: stack.caKeyFile });
});

afterAll(async () => {
  await recorder?.close();
});

const ADM = "/apis/admissionregistration.k8s.io/v1";
/**
 * Where the stack's minor serves MutatingAdmissionPolicy and its binding: v1 from 1.36, v1beta1
 * on 1.35 (npm run test:versions), as the model has it.
 */
const MAP_ADM = `/apis/admissionregistration.k8s.io/${minorBehaviour(stackMinor()).mutatingAdmissionPolicyVersions[0]}`;
const cms = () => `/api/v1/namespaces/${id}/configmaps`;

/** What a hook's plan entry makes the recorder answer. */
function behaviourOf(a: Answer | undefined, short: string): Behaviour {
  switch (a?.t) {
    case "warn":
      return { type: "allow", warnings: [a.w] };
    case "patch": {
      const path = `/metadata/annotations/portcullis.test~1m-${short}`;
      return { type: "patch", patch: [{ op: "add", path, value: a.v }] };
    }
    case "deny":
      return {
        type: "deny",
        message: a.m,
        code: a.c,
        ...(a.r !== undefined ? { reason: a.r } : {}),
      };
    case "error":
      return { type: "http-error", status: 500 };
    case "sleep":
      return { type: "sleep", seconds: 2 };
    default:
      return { type: "allow" };
  }
}

function planOf(req: AdmissionRequest): Plan {
  const source = req.operation === "DELETE" ? req.oldObject : req.object;
  const annotations = (source?.metadata as { annotations?: Record<string, string> } | undefined)
    ?.annotations;
  const text = annotations?.[req.operation === "DELETE" ? DELETE_PLAN : PLAN];
  try {
    return text ? (JSON.parse(text) as Plan) : {};
  } catch {
    return {};
  }
}

async function setUp(seed: number): Promise<void> {
  rand = new Rand(seed);
  id = `ar${runId}s${seed}`;
  HOOKS = Array.from({ length: HOOK_COUNT }, (_, i): Hook => {
    // The first four cover both phases with both failure policies; the rest are random.
    const random = rand.next();
    const phase = (i < 4 ? i < 2 : random < 0.5) ? "mutating" : "validating";
    const policy = rand.pick(["Fail", "Ignore"] as const);
    const short = `${id}h${i}`;
    return {
      short,
      name: `h${i}.${id}.portcullis.test`,
      phase,
      config: `${id}-${phase === "mutating" ? "m" : "v"}${i % 2}`,
      failurePolicy: i < 4 ? (i % 2 === 0 ? "Fail" : "Ignore") : policy,
      sideEffects: rand.pick(["None", "NoneOnDryRun"] as const),
      reinvocation: rand.pick(["Never", "IfNeeded"] as const),
    };
  });
  POLICIES = Array.from({ length: POLICY_COUNT }, (_, j) => ({
    name: `${id}-p${j}`,
    binding: `${id}-b${j}`,
    // One denies, one audits, the third any other way.
    actions:
      j === 0
        ? ["Deny"]
        : j === 1
          ? ["Audit"]
          : rand.pick([["Warn"], ["Deny", "Audit"], ["Warn", "Audit"], ["Audit", "Deny"]]),
    message: `policy ${j} refused this object`,
  }));
  for (const h of HOOKS)
    recorder.program(h.short, {
      type: "choose",
      choose: (req) => {
        const b = behaviourOf(planOf(req)[h.short], h.short);
        if (b.type === "choose") throw new Error("unreachable");
        return b;
      },
    });
  await kubeOk("POST", "/api/v1/namespaces", { metadata: { name: id } });
  const nsSelector = { matchLabels: { "kubernetes.io/metadata.name": id } };
  for (const config of [...new Set(HOOKS.map((h) => h.config))].sort()) {
    const hooks = HOOKS.filter((h) => h.config === config);
    const phase = hooks[0]?.phase ?? "mutating";
    await kubeOk("POST", `${ADM}/${phase}webhookconfigurations`, {
      metadata: { name: config },
      webhooks: hooks.map((h) =>
        recorder.webhook(h.name, h.short, {
          rules: [
            {
              operations: ["CREATE", "UPDATE", "DELETE"],
              apiGroups: [""],
              apiVersions: ["v1"],
              resources: ["configmaps"],
            },
          ],
          namespaceSelector: nsSelector,
          sideEffects: h.sideEffects,
          timeoutSeconds: 1,
          failurePolicy: h.failurePolicy,
          ...(phase === "mutating" ? { reinvocationPolicy: h.reinvocation } : {}),
        }),
      ),
    });
  }
  // Policies are asked about creates and updates of the run's ConfigMaps.
  const policyConstraints = {
    namespaceSelector: nsSelector,
    resourceRules: [
      {
        operations: ["CREATE", "UPDATE"],
        apiGroups: [""],
        apiVersions: ["v1"],
        resources: ["configmaps"],
      },
    ],
  };
  for (const [j, p] of POLICIES.entries()) {
    await kubeOk("POST", `${ADM}/validatingadmissionpolicies`, {
      metadata: { name: p.name },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: policyConstraints,
        validations: [
          {
            expression: `!has(object.metadata.annotations) || !('${failKey(j)}' in object.metadata.annotations)`,
            messageExpression: `string(object.metadata.annotations['${failKey(j)}'])`,
            message: p.message,
          },
        ],
      },
    });
    await kubeOk("POST", `${ADM}/validatingadmissionpolicybindings`, {
      metadata: { name: p.binding },
      spec: { policyName: p.name, validationActions: p.actions },
    });
  }
  // A mutating policy that refuses (its mutation fails) the objects carrying MAP_FAIL.
  await kubeOk("POST", `${MAP_ADM}/mutatingadmissionpolicies`, {
    metadata: { name: mapName() },
    spec: {
      failurePolicy: "Fail",
      reinvocationPolicy: "Never",
      matchConstraints: policyConstraints,
      matchConditions: [
        {
          name: "asked",
          expression: `has(object.metadata.annotations) && '${MAP_FAIL}' in object.metadata.annotations`,
        },
      ],
      mutations: [
        {
          patchType: "ApplyConfiguration",
          applyConfiguration: {
            expression: `Object{metadata: Object.metadata{labels: {"m": string(int(object.metadata.annotations['${MAP_FAIL}']))}}}`,
          },
        },
      ],
    },
  });
  await kubeOk("POST", `${MAP_ADM}/mutatingadmissionpolicybindings`, {
    metadata: { name: mapBinding() },
    spec: { policyName: mapName() },
  });
  await untilInForce();
}

const allAllow = (): string =>
  JSON.stringify(Object.fromEntries(HOOKS.map((h) => [h.short, { t: "allow" }])));

/**
 * Creates (and deletes) probe ConfigMaps until the apiserver calls every hook and enforces every
 * binding: a policy's probe fails only that policy, and its effect must be seen (a refusal, a
 * warning, or the audit annotation).
 */
async function untilInForce(): Promise<void> {
  const deadline = Date.now() + 30_000;
  let k = 0;
  const probe = async (extra: Record<string, string>) => {
    const name = `${id}-probe${k++}`;
    const from = recorder.nextSeq();
    const res = await kube("POST", cms(), {
      metadata: { name, annotations: { [PLAN]: allAllow(), [DELETE_PLAN]: allAllow(), ...extra } },
    });
    if (res.status < 300) await kube("DELETE", `${cms()}/${name}`);
    return {
      name,
      res,
      called: new Set(
        recorder
          .calls()
          .filter((c) => c.seq >= from)
          .map((c) => c.hook),
      ),
    };
  };
  for (;;) {
    const { called } = await probe({});
    if (HOOKS.every((h) => called.has(h.short))) break;
    if (Date.now() > deadline) throw new Error("the apiserver never called every hook");
    await new Promise((r) => setTimeout(r, 250));
  }
  for (;;) {
    const { res } = await probe({ [MAP_FAIL]: "probe" });
    if (res.status >= 400 && res.body.includes(`'${mapName()}'`)) break;
    if (Date.now() > deadline) throw new Error(`mutating policy ${mapName()} never took effect`);
    await new Promise((r) => setTimeout(r, 250));
  }
  for (const [j, p] of POLICIES.entries()) {
    for (;;) {
      const { name, res } = await probe({ [failKey(j)]: "probe" });
      let seen: boolean;
      if (p.actions.includes("Deny")) seen = res.status === 422 && res.body.includes(`'${p.name}'`);
      else if (p.actions.includes("Warn"))
        seen = String(res.headers.warning ?? "").includes(p.name);
      else
        seen = [...(await auditEvents([`create/${name}`], 5_000)).values()].some((e) =>
          e.includes(p.name),
        );
      if (seen) break;
      if (Date.now() > deadline) throw new Error(`binding ${p.binding} never took effect`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

async function tearDown(): Promise<void> {
  for (const config of new Set(HOOKS.map((h) => h.config))) {
    const phase = HOOKS.find((h) => h.config === config)?.phase ?? "mutating";
    await kube("DELETE", `${ADM}/${phase}webhookconfigurations/${config}`);
  }
  await kube("DELETE", `${MAP_ADM}/mutatingadmissionpolicybindings/${mapBinding()}`);
  await kube("DELETE", `${MAP_ADM}/mutatingadmissionpolicies/${mapName()}`);
  for (const p of POLICIES) {
    await kube("DELETE", `${ADM}/validatingadmissionpolicybindings/${p.binding}`);
    await kube("DELETE", `${ADM}/validatingadmissionpolicies/${p.name}`);
  }
  await kube("DELETE", `/api/v1/namespaces/${id}`);
}

/**
 * The ResponseComplete audit log lines (JSON text) of the requests wanted (`<verb>/<object name>`),
 * waiting up to `waitMs` for all of them; keyed like `wanted`.
 */
async function auditEvents(wanted: string[], waitMs: number): Promise<Map<string, string>> {
  const keys = new Set(wanted);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const found = new Map<string, string>();
    for (const file of auditLogFiles(stack))
      for (const line of readFileSync(file, "utf8").split("\n")) {
        if (!line.includes(id)) continue;
        const e = JSON.parse(line) as {
          verb?: string;
          stage?: string;
          objectRef?: { name?: string };
        };
        const key = `${e.verb}/${e.objectRef?.name ?? ""}`;
        if (e.stage === "ResponseComplete" && keys.has(key)) found.set(key, line);
      }
    if (found.size === keys.size || Date.now() > deadline) return found;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A decision as compared: everything the feed shows of it but its position numbers. */
/** 1.37 lists every validation failure in one audit annotation; older minors keep the first. */
const AUDITS_EVERY_VALIDATION_FAILURE = Number(stackMinor().slice(2)) >= 37;

interface Expected {
  kind: DecisionCall["kind"];
  hook: string;
  configuration?: string;
  round?: number;
  outcome: DecisionCall["outcome"];
  /** Exact message, or undefined where the apiserver words it (errors, timeouts). */
  message?: string;
  code?: number;
}

const clip = (s: string) =>
  s.length > MAX_DECISION_TEXT ? `${s.slice(0, MAX_DECISION_TEXT)}…` : s;

/** The message the apiserver makes of a webhook's denial status. */
function denialMessage(a: Extract<Answer, { t: "deny" }>): string {
  const m = asGoReadsIt(a.m);
  if (m.length > 0) return m;
  if (a.r) return asGoReadsIt(a.r);
  return "without explanation";
}

/** The message the apiserver makes of a failed validation whose messageExpression quotes `text`. */
function policyMessage(p: Policy, text: string): string {
  const m = goTrimSpace(asGoReadsIt(text));
  if (m === "" || Buffer.byteLength(m, "utf8") > 5 * 1024 || m.includes("\n")) return p.message;
  return m;
}

interface Case {
  label: string;
  name: string;
  verb: "create" | "update" | "delete";
  dryRun: boolean;
  plan: Plan;
  fails: Record<number, string>;
  /** The text of MAP_FAIL, when the mutating policy is to refuse. */
  mapFail?: string;
  /** Set by expectedOf: the request reached the validating admission policies. */
  reachedPolicies?: boolean;
}

function randomAnswer(h: Hook, sleepy: boolean): Answer {
  const r = rand.next();
  if (r < 0.4) return { t: "allow" };
  if (r < 0.5) return { t: "warn", w: "careful" };
  if (r < 0.7)
    return h.phase === "mutating"
      ? { t: "patch", v: `v${Math.floor(rand.next() * 1e6)}` }
      : { t: "allow" };
  if (r < 0.85)
    return {
      t: "deny",
      m: rand.next() < 0.15 ? "" : hostileText(rand),
      c: rand.pick([0, 200, 302, 399, 400, 403, 404, 409, 422, 429, 500, 503]),
      ...(rand.next() < 0.3 ? { r: rand.pick(["Forbidden", "NotAcceptable", "Gone"]) } : {}),
    };
  if (r < 0.95 || !sleepy) return { t: "error" };
  return { t: "sleep" };
}

function randomCase(i: number): Case {
  const verb =
    i % 20 === 10
      ? "create"
      : rand.pick(["create", "create", "create", "update", "delete"] as const);
  const sleepy = rand.next() < 0.3;
  const plan: Plan = {};
  for (const h of HOOKS) plan[h.short] = randomAnswer(h, sleepy);
  // At most one hook sleeps (each costs a second).
  let sleeping = false;
  for (const h of HOOKS)
    if (plan[h.short]?.t === "sleep") {
      if (sleeping) plan[h.short] = { t: "allow" };
      sleeping = true;
    }
  // Every twentieth request reaches the validating hooks surely (every other hook allows, no
  // policy fails), and those with failurePolicy Ignore err: they fail open.
  if (i % 20 === 15)
    for (const h of HOOKS)
      plan[h.short] =
        h.phase === "validating" && h.failurePolicy === "Ignore" ? { t: "error" } : { t: "allow" };
  const fails: Record<number, string> = {};
  if (verb !== "delete" && i % 20 !== 15)
    for (const j of POLICIES.keys()) if (rand.next() < 0.35) fails[j] = hostileText(rand);
  return {
    label: `#${i} ${verb}`,
    name: `${id}-r${i}`,
    verb,
    dryRun: rand.next() < 0.35,
    plan,
    fails,
    // The mutating policy refuses now and then, and surely in every twentieth request.
    ...(verb !== "delete" && (rand.next() < 0.08 || i % 20 === 10)
      ? { mapFail: hostileText(rand) }
      : {}),
  };
}

/** Sends the case to the apiserver (after creating the object an update or delete needs). */
async function send(c: Case): Promise<{ res: HttpsJsonResponse; from: number }> {
  const dry = c.dryRun ? "?dryRun=All" : "";
  const annotations: Record<string, string> = { [PLAN]: JSON.stringify(c.plan) };
  for (const [j, text] of Object.entries(c.fails)) annotations[failKey(Number(j))] = text;
  if (c.mapFail !== undefined) annotations[MAP_FAIL] = c.mapFail;
  if (c.verb === "create") {
    const from = recorder.nextSeq();
    const res = await kube("POST", `${cms()}${dry}`, { metadata: { name: c.name, annotations } });
    return { res, from };
  }
  const created = await kubeOk("POST", cms(), {
    metadata: {
      name: c.name,
      annotations: {
        [PLAN]: allAllow(),
        [DELETE_PLAN]: c.verb === "delete" ? JSON.stringify(c.plan) : allAllow(),
      },
    },
  });
  const from = recorder.nextSeq();
  if (c.verb === "delete") return { res: await kube("DELETE", `${cms()}/${c.name}${dry}`), from };
  const meta = created.metadata as Record<string, unknown>;
  const res = await kube("PUT", `${cms()}/${c.name}${dry}`, {
    metadata: { ...meta, annotations: { ...annotations, [DELETE_PLAN]: allAllow() } },
  });
  return { res, from };
}

/**
 * The decisions that happened: the calls the recorder received, what each answered by the plan,
 * and the policies that failed.
 * `problems` gets any call the apiserver made that the plan cannot explain.
 */
function expectedOf(c: Case, from: number, problems: string[]): Expected[] {
  const calls = recorder
    .calls()
    .filter((x) => x.seq >= from && x.request.name === c.name && x.request.namespace === id);
  const byShort = new Map(HOOKS.map((h) => [h.short, h]));
  const mutatingOrder = HOOKS.filter((h) => h.phase === "mutating").sort((a, b) =>
    a.config === b.config ? 0 : a.config < b.config ? -1 : 1,
  );
  const out: Expected[] = [];
  const stopsWith = (h: Hook, a: Answer | undefined): Expected | undefined => {
    if (a?.t === "deny")
      return {
        kind: "webhook",
        hook: h.name,
        outcome: "denied",
        message: clip(denialMessage(a)),
        code: a.c < 400 ? 400 : a.c,
      };
    if ((a?.t === "error" || a?.t === "sleep") && h.failurePolicy === "Fail")
      return {
        kind: "webhook",
        hook: h.name,
        outcome: a.t === "sleep" ? "timeout" : "error",
        code: 500,
      };
    if (a?.t === "patch" && c.verb === "delete")
      return { kind: "webhook", hook: h.name, outcome: "error", code: 500 };
    return undefined;
  };

  // The mutating policy runs before the mutating webhooks; its refusal ends admission.
  if (c.mapFail !== undefined) {
    if (calls.length > 0)
      problems.push(`${c.label}: webhooks called after the mutating policy refused`);
    return [
      {
        kind: "mutating-policy",
        hook: mapName(),
        configuration: mapBinding(),
        outcome: "rejected",
      },
    ];
  }

  // Mutating, round 0 as the apiserver orders the hooks, then the reinvocations recorded.
  let stopped: Expected | undefined;
  const expectedRound0: string[] = [];
  for (const h of mutatingOrder) {
    expectedRound0.push(h.short);
    const a = c.plan[h.short];
    const stop = stopsWith(h, a);
    if (stop) {
      stopped = { ...stop, kind: "mutating-webhook", configuration: h.config, round: 0 };
      out.push(stopped);
      break;
    }
    const failedOpen = a?.t === "error" || a?.t === "sleep";
    out.push({
      kind: "mutating-webhook",
      hook: h.name,
      configuration: h.config,
      round: 0,
      outcome: failedOpen ? "failed-open" : a?.t === "patch" ? "mutated" : "admitted",
      message: "",
    });
  }
  const mutatingCalls = calls.filter((x) => byShort.get(x.hook)?.phase === "mutating");
  const round0 = mutatingCalls.slice(0, expectedRound0.length).map((x) => x.hook);
  if (JSON.stringify(round0) !== JSON.stringify(expectedRound0))
    problems.push(`${c.label}: mutating calls ${round0} ≠ the plan's ${expectedRound0}`);
  for (const x of mutatingCalls.slice(expectedRound0.length)) {
    // Reinvocations: a patch now changes nothing; an error or a sleep fails (open) again.
    const h = byShort.get(x.hook) as Hook;
    const a = c.plan[h.short];
    if (h.reinvocation !== "IfNeeded") problems.push(`${c.label}: ${h.short} reinvoked`);
    out.push({
      kind: "mutating-webhook",
      hook: h.name,
      configuration: h.config,
      round: 1,
      outcome: a?.t === "error" || a?.t === "sleep" ? "failed-open" : "admitted",
      message: "",
    });
  }
  if (stopped) return out;

  // Validating admission policies (before the validating webhooks).
  c.reachedPolicies = true;
  const denying: Expected[] = [];
  for (const [j, p] of POLICIES.entries()) {
    const text = c.fails[j];
    if (text === undefined) continue;
    const message = clip(policyMessage(p, text));
    const outcome = p.actions.includes("Deny")
      ? "rejected"
      : p.actions.includes("Warn")
        ? "warned"
        : "audited";
    const d: Expected = {
      kind: "validating-policy",
      hook: p.name,
      configuration: p.binding,
      outcome,
      message,
    };
    if (p.actions.includes("Deny")) {
      d.code = 422;
      denying.push(d);
    }
    if (p.actions.includes("Audit")) out.push(d);
  }
  // Before 1.37 the apiserver records only one validation failure per request in the
  // `validation.policy.admission.k8s.io/validation_failure` annotation: the first binding it
  // evaluates sets it and the others cannot overwrite it (1.36's publishValidationFailureAnnotation;
  // 1.37 lists every failure). Its policies come in no fixed order, so any one of them.
  const audited = out.filter((x) => x.kind === "validating-policy" && x.hook !== "");
  if (!AUDITS_EVERY_VALIDATION_FAILURE && audited.length > 1) {
    for (const x of audited) out.splice(out.indexOf(x), 1);
    out.push({
      kind: "validating-policy",
      hook: "*",
      outcome: "audited",
      message: JSON.stringify(audited),
    });
  }
  const validatingCalls = calls.filter((x) => byShort.get(x.hook)?.phase === "validating");
  if (denying.length > 0) {
    if (validatingCalls.length > 0)
      problems.push(`${c.label}: validating hooks called after a policy denied`);
    // The apiserver names one denial in the status: a decision of its own unless audited already.
    out.push({
      kind: "validating-policy",
      hook: "",
      outcome: "rejected",
      message: JSON.stringify(denying),
    });
    return out;
  }

  // Validating webhooks: in parallel; the apiserver reports one refusal.
  const refusals: Expected[] = [];
  for (const h of HOOKS.filter((x) => x.phase === "validating")) {
    if (!validatingCalls.some((x) => x.hook === h.short))
      problems.push(`${c.label}: validating ${h.short} not called`);
    const a = c.plan[h.short];
    const stop = stopsWith(h, a);
    if (stop) refusals.push(stop);
    else if (a?.t === "error" || a?.t === "sleep")
      out.push({ kind: "validating-webhook", hook: h.name, outcome: "failed-open", message: "" });
  }
  if (refusals.length > 0)
    out.push({ kind: "webhook", hook: "", outcome: "denied", message: JSON.stringify(refusals) });
  return out;
}

/** Compares the parsed decisions of one event with what happened. */
function compare(
  c: Case,
  expected: Expected[],
  parsed: DecisionCall[],
  res: HttpsJsonResponse,
): string[] {
  const status = res.status;
  let statusMessage = "";
  try {
    statusMessage = String((JSON.parse(res.body) as { message?: unknown }).message ?? "");
  } catch {
    // not a Status
  }
  const problems: string[] = [];
  const ours = parsed.filter((d) => d.hook.includes(id) || d.kind === "webhook");
  const show = (d: Partial<DecisionCall>) =>
    `${d.kind} ${d.hook} r${d.round ?? "-"} ${d.outcome} ${d.code ?? ""} ${JSON.stringify((d.message ?? "").slice(0, 80))}`;
  const same = (e: Expected, d: DecisionCall): string | undefined => {
    if (d.kind !== e.kind || d.hook !== e.hook || d.outcome !== e.outcome) return "differs";
    if (e.round !== undefined && d.round !== e.round) return "round";
    if (e.configuration !== undefined && d.configuration !== e.configuration)
      return "configuration";
    if (e.message !== undefined && d.message !== e.message) return "message";
    if (e.message === undefined && d.message.length === 0) return "no message";
    if (e.code !== undefined && d.code !== e.code) return `code ${d.code} ≠ ${e.code}`;
    if (d.code !== undefined && d.code !== status)
      return `code ${d.code}, the client got ${status}`;
    if (e.code !== undefined && status !== e.code) return `the client got ${status}, not ${e.code}`;
    return undefined;
  };
  const rest = [...ours];
  for (const e of expected) {
    let at: number;
    let why: string | undefined;
    if (e.hook === "*" && e.kind === "validating-policy") {
      // One of several audited failures (before 1.37): whichever the event carries.
      const candidates = JSON.parse(e.message ?? "[]") as Expected[];
      at = rest.findIndex(
        (d) => d.kind === "validating-policy" && candidates.some((x) => x.hook === d.hook),
      );
      const d = at >= 0 ? (rest[at] as DecisionCall) : undefined;
      const match = d && candidates.find((x) => x.hook === d.hook);
      why = !d || !match ? `none of ${candidates.map((x) => x.hook)} parsed` : same(match, d);
    } else if (e.hook === "" && e.kind === "validating-policy") {
      const candidates = JSON.parse(e.message ?? "[]") as Expected[];
      // The policy the apiserver's answer names (the audit event's status says the same).
      const named = candidates.find((x) =>
        statusMessage.includes(`ValidatingAdmissionPolicy '${x.hook}'`),
      );
      at = rest.findIndex((d) => d.kind === "validating-policy" && d.outcome === "rejected");
      const d = at >= 0 ? (rest[at] as DecisionCall) : undefined;
      const audited = named && expected.some((x) => x !== e && x.hook === named.hook);
      // Before 1.37, one of several audited failures: the named denial may be the one the
      // annotation carries (then no decision of its own) or not (then one, by whichever of them
      // the "*" entry did not take).
      const oneOf = expected
        .filter((x) => x.hook === "*")
        .flatMap((x) => JSON.parse(x.message ?? "[]") as Expected[]);
      if (named && oneOf.some((y) => y.hook === named.hook)) {
        const m = d && oneOf.find((y) => y.hook === d.hook);
        why = !d
          ? undefined
          : m
            ? same({ ...m, outcome: "rejected" }, d)
            : `rejection by ${d.hook}?`;
      } else if (!named) why = `the answer names none of ${candidates.map((x) => x.hook)}`;
      else if (audited) why = d ? `a second rejection by ${d.hook}` : undefined;
      else why = d ? same(named, d) : `no rejection by ${named.hook} parsed`;
    } else if (e.hook === "" && e.kind === "webhook") {
      const candidates = JSON.parse(e.message ?? "[]") as Expected[];
      at = rest.findIndex((d) => d.kind === "webhook");
      const d = at >= 0 ? (rest[at] as DecisionCall) : undefined;
      const match = d && candidates.find((x) => x.hook === d.hook);
      why = !d
        ? `no validating refusal parsed (one of ${candidates.map(show).join("; ")})`
        : !match
          ? `refused by ${d.hook}?`
          : same(match, d);
    } else {
      at = rest.findIndex(
        (d) =>
          d.kind === e.kind && d.hook === e.hook && (e.round === undefined || d.round === e.round),
      );
      const d = at >= 0 ? (rest[at] as DecisionCall) : undefined;
      why = d ? same(e, d) : "missing";
      if (why && d) why += `: parsed ${show(d)}`;
    }
    if (why) problems.push(`${c.label}: expected ${show(e)} — ${why}`);
    if (at >= 0) rest.splice(at, 1);
  }
  for (const d of rest) problems.push(`${c.label}: unexpected ${show(d)}`);
  return problems;
}

async function scrape(): Promise<AdmissionMetrics> {
  const res = await kube("GET", "/metrics");
  if (res.status !== 200) throw new Error(`GET /metrics: ${res.status}`);
  return foldAdmissionMetrics(res.body);
}

/** What the apiserver's metrics count for one hook, as the Health page reads them. */
interface HookCounts {
  calls: number;
  rejected: number;
  failOpen: number;
  rejections: Record<string, number>;
  byCode: Record<string, number>;
}

/**
 * Each hook's counters over the requests (the apiserver's /metrics before and after, folded as
 * the Health page folds them) against the calls the recorder received and what each answered.
 */
function compareMetrics(
  before: AdmissionMetrics,
  after: AdmissionMetrics,
  firstCall: number,
  cases: Case[],
): { problems: string[]; calls: number } {
  const problems: string[] = [];
  let calls = 0;
  for (const h of HOOKS) {
    const type = h.phase === "mutating" ? "admit" : "validating";
    const key = webhookKey(h.name, type);
    const got = after.webhooks.get(key);
    const m = got ? webhookDelta(got, before.webhooks.get(key)) : undefined;
    const want: HookCounts = { calls: 0, rejected: 0, failOpen: 0, rejections: {}, byCode: {} };
    const add = (r: Record<string, number>, k: string) => (r[k] = (r[k] ?? 0) + 1);
    // Every call counts alike, a reinvocation too (it answers as its plan says again).
    for (const call of recorder.calls(h.short).filter((x) => x.seq >= firstCall)) {
      const req = call.request;
      const a = planOf(req)[h.short];
      want.calls++;
      if (a?.t === "deny") {
        want.rejected++;
        add(want.rejections, "no_error");
        add(want.byCode, String(a.c < 400 ? 400 : a.c));
      } else if (a?.t === "error" || a?.t === "sleep") {
        // A transport error or a timeout is labelled 503; the backend's own 500 keeps its code.
        const code = a.t === "sleep" ? "503" : "500";
        add(want.byCode, code);
        if (h.failurePolicy === "Fail") {
          want.rejected++;
          add(want.rejections, "calling_webhook_error");
        } else want.failOpen++;
      } else if (a?.t === "patch" && req.operation === "DELETE") {
        want.rejected++;
        add(want.rejections, "apiserver_internal_error");
        add(want.byCode, "0");
      } else add(want.byCode, "200");
    }
    const have: HookCounts = {
      calls: m?.calls ?? 0,
      rejected: m?.rejected ?? 0,
      failOpen: m?.failOpen ?? 0,
      rejections: Object.fromEntries(Object.entries(m?.rejections ?? {}).filter(([, v]) => v > 0)),
      byCode: Object.fromEntries(Object.entries(m?.byCode ?? {}).filter(([, v]) => v > 0)),
    };
    const sorted = (c: HookCounts) =>
      JSON.stringify({
        ...c,
        rejections: Object.fromEntries(Object.entries(c.rejections).sort()),
        byCode: Object.fromEntries(Object.entries(c.byCode).sort()),
      });
    calls += have.calls;
    if (sorted(have) !== sorted(want))
      problems.push(
        `metrics of ${h.short} (${type}, ${h.failurePolicy}): ${sorted(have)} ≠ ${sorted(want)}`,
      );
  }
  // Each failed validation is counted once per action of its binding; the mutating policy once
  // per evaluation (its matchConditions exclude every other request), each an error.
  for (const [j, p] of POLICIES.entries()) {
    const key = policyKey("ValidatingAdmissionPolicy", p.name, p.binding);
    const got = after.policies.get(key);
    const m = got ? policyDelta(got, before.policies.get(key)) : undefined;
    const failed = cases.filter((c) => c.reachedPolicies && c.fails[j] !== undefined).length;
    const want = Object.fromEntries(
      p.actions.map((a) => [a.toLowerCase(), failed]).filter(([, n]) => n),
    );
    const have = Object.fromEntries(Object.entries(m?.byAction ?? {}).filter(([, n]) => n > 0));
    const show = (r: Record<string, unknown>) =>
      JSON.stringify(Object.fromEntries(Object.entries(r).sort()));
    if (show(have) !== show(want) || (m?.evaluationErrors ?? 0) !== 0)
      problems.push(
        `metrics of ${p.name} (${p.actions}): ${show(have)} ≠ ${show(want)}, ${m?.evaluationErrors ?? 0} errors`,
      );
  }
  const mapKey = policyKey("MutatingAdmissionPolicy", mapName(), mapBinding());
  const mapGot = after.policies.get(mapKey);
  const map = mapGot ? policyDelta(mapGot, before.policies.get(mapKey)) : undefined;
  const refused = cases.filter((c) => c.mapFail !== undefined).length;
  if ((map?.checks ?? 0) !== refused || (map?.evaluationErrors ?? 0) !== refused)
    problems.push(
      `metrics of ${mapName()}: ${map?.checks ?? 0} checks, ${map?.evaluationErrors ?? 0} errors ≠ ${refused}`,
    );
  return { problems, calls };
}

/** The decisions of `events` stored in a fresh store and read back: what differs. */
async function roundTrip(
  events: ParsedAuditEvent[],
  engine: "sqlite" | "postgres",
): Promise<string[]> {
  const problems: string[] = [];
  const dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-audit-oracle-"));
  const pg = engine === "postgres" ? await startPostgres() : undefined;
  const store = new DecisionStore(
    pg ? new PostgresDriver(pg.url) : new SqliteDriver(path.join(dir, "d.sqlite")),
    { maxAgeMs: 365 * 86_400_000, maxRows: 1_000_000 },
  );
  const text = (v: string | undefined) =>
    pg && v !== undefined ? v.replaceAll("\u0000", "\ufffd") : v;
  const fields = (d: DecisionCall) => [
    d.kind,
    d.hook,
    d.configuration,
    d.outcome,
    d.code,
    text(d.message),
    text(d.patch),
    d.round,
    d.index,
  ];
  try {
    await store.migrate();
    await store.ingest(events);
    for (const e of events) {
      const back = await store.list({ outcome: [], auditID: e.auditID }, { limit: 100 });
      const want = JSON.stringify(e.decisions.map(fields).sort());
      const got = JSON.stringify(back.map(fields).sort());
      if (got !== want)
        problems.push(
          `stored on ${engine} ${e.auditID}: ${got.slice(0, 300)} ≠ ${want.slice(0, 300)}`,
        );
    }
  } finally {
    await store.driver.close();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return problems;
}

test.each(SEEDS)(
  "randomized decision oracle, seed %i: every decision parsed from the audit events is the one that happened",
  async (seed) => {
    try {
      await setUp(seed);
      await run(seed);
    } finally {
      await tearDown();
    }
  },
  600_000,
);

async function run(seed: number): Promise<void> {
  const problems: string[] = [];
  const cases: Array<{ c: Case; expected: Expected[]; res: HttpsJsonResponse }> = [];
  const metricsBefore = await scrape();
  const firstCall = recorder.nextSeq();
  for (let i = 0; i < REQUESTS; i++) {
    const c = randomCase(i);
    const { res, from } = await send(c);
    cases.push({ c, expected: expectedOf(c, from, problems), res });
  }
  const metrics = compareMetrics(
    metricsBefore,
    await scrape(),
    firstCall,
    cases.map((x) => x.c),
  );
  problems.push(...metrics.problems);
  const lines = await auditEvents(
    cases.map((x) => `${x.c.verb}/${x.c.name}`),
    20_000,
  );
  const parsed: ParsedAuditEvent[] = [];
  const counts: Record<string, number> = {};
  const kinds: Record<string, number> = {};
  for (const { c, expected, res } of cases) {
    const line = lines.get(`${c.verb}/${c.name}`);
    if (!line) {
      problems.push(`${c.label}: no audit event`);
      continue;
    }
    const event = parseAuditEvent(JSON.parse(line), line);
    const decisions = event?.decisions ?? [];
    if (event && decisions.length > 0) parsed.push(event);
    for (const d of decisions) {
      counts[d.outcome] = (counts[d.outcome] ?? 0) + 1;
      kinds[d.kind] = (kinds[d.kind] ?? 0) + 1;
    }
    problems.push(...compare(c, expected, decisions, res));
  }

  // The same events as one EventList parse the same.
  const batch = `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[${[...lines.values()].join(",")}]}`;
  const fromBatch = parseEventListText(batch).filter(
    (e) => e.auditID && parsed.some((p) => p.auditID === e.auditID),
  );
  expect(fromBatch).toEqual(parsed);

  // Stored and read back, every field to the character, on SQLite and on PostgreSQL (which
  // cannot hold NUL in text: the store writes U+FFFD there).
  problems.push(...(await roundTrip(parsed, "sqlite")), ...(await roundTrip(parsed, "postgres")));

  console.log(
    `randomized decision oracle (seed ${seed}): ${cases.length} requests, ${parsed.length} events with decisions ${JSON.stringify(counts)} by ${JSON.stringify(kinds)}, ${metrics.calls} hook calls counted in /metrics, ${problems.length} disagreements`,
  );
  for (const p of problems.slice(0, 30)) console.log(`DISAGREE ${p}`);
  expect(problems).toEqual([]);
  // Every kind of outcome the plan can produce was produced.
  for (const o of ["admitted", "mutated", "denied", "failed-open", "error", "rejected", "audited"])
    expect(counts[o] ?? 0, o).toBeGreaterThan(0);
  for (const k of [
    "mutating-webhook",
    "validating-webhook",
    "webhook",
    "validating-policy",
    "mutating-policy",
  ])
    expect(kinds[k] ?? 0, k).toBeGreaterThan(0);
}
