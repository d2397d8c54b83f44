/**
 * Runs admission test cases (format.ts) against a configuration, offline: each case's request is
 * built as `portcullis predict` builds it (report/predict-report.ts `buildRequest`), the chain is
 * predicted by the predictor (prediction/, matching/ — the same code the predict page and the
 * matching oracle use), the admission policies it calls are evaluated (policy-eval.ts), and every
 * expectation the case sets is checked: pass, fail, or undecided (what offline cannot know: a
 * webhook's answer, a matchCondition this evaluator cannot run). A server-side dry run's answer,
 * when the caller made one, decides the `dryRun` expectations and an otherwise undecided
 * `admitted`. Pure: no I/O.
 */
import { compileSnapshot, type CompiledSnapshot } from "@/lib/admission/matching/compile";
import type { HookIdentity } from "@/lib/admission/model/hook-identity";
import type { ParamObjects } from "@/lib/admission/model/params";
import type { AdmissionRequest, JsonObject, RequestUserInfo } from "@/lib/admission/model/request";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type { buildRequest } from "@/lib/admission/report/predict-report";
import type { SkipReason } from "@/lib/admission/matching/compiled";
import {
  predict,
  type Explained,
  type PredictedCall,
  type Prediction,
} from "@/lib/admission/prediction/predict";
import {
  formatHookRef,
  parseHookRef,
  type HookRef,
  type LocatedTestCase,
  type PolicyResult,
  type TestCase,
  type TestSuite,
} from "./format";
import { buildTestRequest } from "./request";
import {
  combineEvaluations,
  evaluateMutating,
  evaluateValidating,
  type ValidatingEvaluation,
} from "./policy-eval";

/** What the cases run against. */
export interface TestConfiguration {
  /** Hooks, policies, bindings, namespaces, discovery (as `portcullis predict` loads them). */
  readonly snapshot: AdmissionSnapshot;
  /** Where the namespaces' labels came from: `cluster` makes an unknown namespace missing. */
  readonly namespacesFrom: "files" | "cluster" | undefined;
  /** The identity of a case without userInfo (the caller's, live); default a cluster admin. */
  readonly identity?: RequestUserInfo;
}

/** The apiserver's answer to a case's server-side dry run, or why none was made. */
export type DryRunOutcome =
  | {
      readonly kind: "answered";
      readonly allowed: boolean;
      /** HTTP status (2xx when allowed). */
      readonly status: number;
      readonly message: string;
      readonly warnings: readonly string[];
    }
  | { readonly kind: "skipped"; readonly reason: string };

/** One expectation's verdict. @public */
export interface CheckResult {
  /** The expectation, e.g. `calls`, `policies[0]`, `dryRun.allowed`. */
  readonly expectation: string;
  readonly status: "pass" | "fail" | "undecided";
  /** Why it failed or is undecided (empty when it passed). */
  readonly message: string;
}

/** One case's verdict: `skip` when no expectation could be decided. */
export interface CaseResult {
  readonly name: string;
  readonly status: "pass" | "fail" | "skip" | "error";
  readonly checks: readonly CheckResult[];
  /** The request could not be built (e.g. an unknown resource): the case errs. */
  readonly error: string | undefined;
  /** What the run saw: the certain calls in order, and the offline verdict. */
  readonly calls: readonly string[];
  readonly admitted: boolean | undefined;
  readonly notices: readonly string[];
  readonly durationMs: number;
  /** The request the case describes (undefined when it could not be built). */
  readonly request: AdmissionRequest | undefined;
  /** The webhooks the request reaches or may reach (any round, undecided ones too). */
  readonly reachedWebhooks: readonly string[];
}

/** A policy binding's offline evaluation within a case. */
interface PolicyOutcome {
  readonly ref: string;
  readonly hook: HookIdentity;
  readonly evaluation: ValidatingEvaluation;
}

const DEFAULT_USER: RequestUserInfo = {
  username: "kubernetes-admin",
  groups: ["system:masters", "system:authenticated"],
};

function refOf(h: HookIdentity): string {
  return formatHookRef({ source: h.source, configuration: h.configuration, name: h.name });
}

function refMatches(ref: HookRef, h: HookIdentity): boolean {
  return (
    ref.source === h.source &&
    ref.configuration === h.configuration &&
    (ref.name === undefined || ref.name === h.name)
  );
}

function mustRef(text: string): HookRef {
  const r = parseHookRef(text);
  if (!r) throw new Error(`not a hook reference: ${text}`);
  return r;
}

const metaOf = (o: JsonObject | null | undefined): JsonObject =>
  (o?.metadata as JsonObject | undefined) ?? {};
const strOf = (v: unknown): string => (typeof v === "string" ? v : "");

/** The case's param objects as the snapshot lists them, and in full by kind and name. */
function caseParams(objects: readonly JsonObject[]): {
  lists: ParamObjects[];
  full: Map<string, Map<string, JsonObject>>;
} {
  const lists = new Map<string, ParamObjects & { objects: ParamObjects["objects"][number][] }>();
  const full = new Map<string, Map<string, JsonObject>>();
  for (const o of objects) {
    const apiVersion = strOf(o.apiVersion);
    const kind = strOf(o.kind);
    const key = `${apiVersion}/${kind}`;
    const m = metaOf(o);
    const namespace = strOf(m.namespace);
    const name = strOf(m.name);
    const labels = (m.labels as Record<string, string> | undefined) ?? undefined;
    const list = lists.get(key) ?? { apiVersion, kind, namespaced: namespace !== "", objects: [] };
    list.objects.push({ ...(namespace ? { namespace } : {}), name, ...(labels ? { labels } : {}) });
    lists.set(key, list);
    const byName = full.get(key) ?? new Map<string, JsonObject>();
    byName.set(namespace ? `${namespace}/${name}` : name, o);
    full.set(key, byName);
  }
  return { lists: [...lists.values()], full };
}

/** Runs cases; one configuration is compiled once for the cases that add nothing to it. */
export class TestRunner {
  private readonly compiled = new Map<string, CompiledSnapshot>();
  private plain:
    | {
        snapshot: AdmissionSnapshot;
        compiled: CompiledSnapshot;
        full: Map<string, Map<string, JsonObject>>;
      }
    | undefined;

  constructor(private readonly config: TestConfiguration) {}

  private snapshotFor(
    suite: TestSuite | undefined,
    c: TestCase,
  ): {
    snapshot: AdmissionSnapshot;
    compiled: CompiledSnapshot;
    full: Map<string, Map<string, JsonObject>>;
  } {
    const base = this.config.snapshot;
    const suiteNs = suite?.namespaces ?? {};
    // Most cases add nothing to the configuration: compiled once, shared by all.
    if (c.request.params === undefined && Object.keys(suiteNs).length === 0) {
      this.plain ??= { snapshot: base, compiled: compileSnapshot(base), full: new Map() };
      return this.plain;
    }
    const namespaces = { ...base.namespaces };
    for (const [name, labels] of Object.entries(suiteNs))
      namespaces[name] ??= { "kubernetes.io/metadata.name": name, ...labels };
    const { lists, full } = caseParams((c.request.params ?? []) as JsonObject[]);
    const kinds = new Set(lists.map((l) => `${l.apiVersion}/${l.kind}`));
    // Given params are all there are: every paramKind a policy names has only these objects.
    if (c.request.params !== undefined) {
      const named = [
        ...(base.validatingAdmissionPolicies ?? []),
        ...(base.mutatingAdmissionPolicies ?? []),
      ].flatMap((p) => (p.spec?.paramKind ? [p.spec.paramKind] : []));
      for (const pk of named) {
        const apiVersion = pk.apiVersion ?? "";
        const kind = pk.kind ?? "";
        if (kinds.has(`${apiVersion}/${kind}`)) continue;
        kinds.add(`${apiVersion}/${kind}`);
        const [group, version] = apiVersion.includes("/")
          ? apiVersion.split("/")
          : ["", apiVersion];
        const served = base.discovery?.find(
          (d) => d.kind === kind && d.group === group && d.version === version,
        );
        lists.push({ apiVersion, kind, namespaced: served?.namespaced ?? true, objects: [] });
      }
    }
    const params =
      c.request.params !== undefined
        ? [...(base.params ?? []).filter((p) => !kinds.has(`${p.apiVersion}/${p.kind}`)), ...lists]
        : base.params;
    const snapshot: AdmissionSnapshot = {
      ...base,
      namespaces,
      ...(params ? { params } : {}),
    };
    const key = JSON.stringify([
      Object.keys(suiteNs).length > 0 ? suiteNs : null,
      c.request.params !== undefined ? lists : null,
    ]);
    let compiled = this.compiled.get(key);
    if (!compiled) {
      compiled = compileSnapshot(snapshot);
      this.compiled.set(key, compiled);
    }
    return { snapshot, compiled, full };
  }

  /** Builds the case's request (throws RequestSpecError when it cannot be built). */
  private request(
    c: TestCase,
    snapshot: AdmissionSnapshot,
  ): {
    request: AdmissionRequest;
    report: ReturnType<typeof buildRequest>["report"];
    notices: string[];
  } {
    const r = c.request;
    const built = buildTestRequest(r, {
      discovery: snapshot.discovery ?? [],
      namespaces: snapshot.namespaces ?? {},
      namespacesFrom: this.config.namespacesFrom,
      identity: this.config.identity ?? DEFAULT_USER,
    });
    const u = r.userInfo;
    const userInfo: RequestUserInfo | undefined = u
      ? {
          username: u.username,
          groups: u.groups ?? [],
          ...(u.uid !== undefined ? { uid: u.uid } : {}),
          ...(u.extra !== undefined ? { extra: u.extra } : {}),
        }
      : undefined;
    const request: AdmissionRequest = {
      ...built.request,
      ...(r.kind ? { kind: r.kind } : {}),
      ...(r.operation === "DELETE" && r.object === undefined && r.oldObject === undefined
        ? { oldObject: null }
        : {}),
      ...(userInfo ? { userInfo } : {}),
      ...(r.options !== undefined ? { options: r.options as JsonObject | null } : {}),
    };
    return {
      request,
      report: {
        ...built.report,
        userInfo: { username: request.userInfo.username, groups: [...request.userInfo.groups] },
      },
      notices: built.notices.map((n) => n.message),
    };
  }

  /** Runs one case; `dryRun` is the apiserver's answer when the caller made a dry run. */
  run(located: LocatedTestCase | TestCase, suite?: TestSuite, dryRun?: DryRunOutcome): CaseResult {
    const c = "case" in located ? located.case : located;
    const started = performance.now();
    const done = (
      partial: Omit<CaseResult, "name" | "durationMs" | "status"> & {
        status?: CaseResult["status"];
      },
    ): CaseResult => ({
      name: c.name,
      status: partial.status ?? verdict(partial.checks),
      ...partial,
      durationMs: performance.now() - started,
    });
    let built: ReturnType<TestRunner["request"]>;
    let ctx: ReturnType<TestRunner["snapshotFor"]>;
    try {
      ctx = this.snapshotFor(suite, c);
      built = this.request(c, ctx.snapshot);
    } catch (e) {
      return done({
        status: "error",
        checks: [],
        error: e instanceof Error ? e.message : String(e),
        calls: [],
        admitted: undefined,
        notices: [],
        request: undefined,
        reachedWebhooks: [],
      });
    }
    const report = seen(predict(built.request, ctx.compiled));
    const outcome = evaluatePolicies(report, built.request, ctx.snapshot, ctx.full, c);
    const checks = checkExpectations(c, report, outcome, dryRun);
    return done({
      checks,
      error: undefined,
      calls: certainCalls(report).map((x) => refOf(x.hook)),
      admitted: outcome.admitted,
      notices: built.notices,
      request: built.request,
      reachedWebhooks: [
        ...new Set(
          [...report.calls.map((x) => x.hook), ...report.indeterminate.map((x) => x.hook)]
            .filter(
              (h) =>
                h.source === "MutatingWebhookConfiguration" ||
                h.source === "ValidatingWebhookConfiguration",
            )
            .map(refOf),
        ),
      ],
    });
  }
}

/** A skip, its sentence made only when read. */
interface SeenSkip {
  readonly hook: HookIdentity;
  readonly code: SkipReason["code"];
  readonly reason: SkipReason;
  readonly message: string;
}

/** What the runner reads of a prediction (the explainer's sentences only when asked). */
interface Seen {
  readonly calls: readonly PredictedCall[];
  readonly skips: readonly SeenSkip[];
  readonly indeterminate: Prediction["indeterminate"];
  readonly failure: Prediction["failure"];
  readonly alsoFailing: Prediction["alsoFailing"];
  readonly rejectedBeforeHooks: Prediction["rejectedBeforeHooks"];
  readonly podSecurity: Prediction["podSecurity"];
  readonly neverSent: boolean;
}

class LazySkip implements SeenSkip {
  constructor(
    private readonly entry: Prediction["skips"][number],
    private readonly explainer: Explained["explainer"],
  ) {}
  get hook(): HookIdentity {
    return this.entry.hook;
  }
  get code(): SkipReason["code"] {
    return this.entry.reason.code;
  }
  get reason(): SkipReason {
    return this.entry.reason;
  }
  get message(): string {
    return this.explainer.skip(this.entry).message;
  }
}

function seen({ prediction: p, explainer }: Explained): Seen {
  return {
    calls: p.calls,
    skips: p.skips.map((s) => new LazySkip(s, explainer)),
    indeterminate: p.indeterminate,
    failure: p.failure,
    alsoFailing: p.alsoFailing,
    rejectedBeforeHooks: p.rejectedBeforeHooks,
    podSecurity: p.podSecurity,
    neverSent: p.exclusions.webhooks?.code === "operation-never-sent",
  };
}

function verdict(checks: readonly CheckResult[]): CaseResult["status"] {
  if (checks.some((c) => c.status === "fail")) return "fail";
  if (checks.some((c) => c.status === "pass")) return "pass";
  return "skip";
}

const certainCalls = (r: Seen): PredictedCall[] =>
  r.calls.filter((c) => c.round === 0 && c.certainty === "certain");

/** The chain's offline outcome: policies evaluated, the object after mutations, the verdict. */
interface ChainOutcome {
  readonly policies: PolicyOutcome[];
  /** The object after the mutating policies; undefined when it cannot be known offline. */
  readonly mutated: JsonObject | null | undefined;
  readonly mutatedUndecided: string | undefined;
  readonly warnings: string[];
  /** undefined: offline cannot tell. */
  readonly admitted: boolean | undefined;
  readonly admittedWhy: string;
}

function namespaceObjectOf(c: TestCase, request: AdmissionRequest): JsonObject | null {
  if (c.request.namespaceObject) return c.request.namespaceObject as JsonObject;
  const ns = request.namespace ?? "";
  if (ns === "" || request.resource === "namespaces") return null;
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: ns, labels: request.namespaceObject?.labels ?? {} },
  };
}

function evaluatePolicies(
  report: Seen,
  request: AdmissionRequest,
  snapshot: AdmissionSnapshot,
  params: Map<string, Map<string, JsonObject>>,
  c: TestCase,
): ChainOutcome {
  const policies: PolicyOutcome[] = [];
  const warnings: string[] = [...(report.podSecurity?.warnings ?? [])];
  let object: JsonObject | null = request.object ?? null;
  let objectUncertain: string | undefined;
  const namespaceObject = namespaceObjectOf(c, request);
  const namespacePartial = c.request.namespaceObject === undefined;
  // The policies' CEL as the snapshot's minor evaluates it (its cel-go), as its matchConditions.
  const minor = snapshot.kubernetes ? { minor: snapshot.kubernetes.minor } : {};
  const paramObjectsOf = (
    paramKind: { apiVersion?: string; kind?: string } | undefined,
    names: readonly string[] | undefined,
  ): (JsonObject | null)[] | string => {
    if (!paramKind) return [null];
    if (names === undefined)
      return "its param objects are not known (give them as the case's params)";
    const byName = params.get(`${paramKind.apiVersion ?? ""}/${paramKind.kind ?? ""}`);
    const out: JsonObject[] = [];
    for (const n of names) {
      const o = byName?.get(n);
      if (!o)
        return `its param object ${n} is known by name only (give it in full as the case's params)`;
      out.push(o);
    }
    return out.length === 0 ? [null] : out;
  };

  for (const call of certainCalls(report)) {
    const h = call.hook;
    if (h.source === "MutatingWebhookConfiguration" || h.source === "InitializerConfiguration") {
      objectUncertain ??= `${refOf(h)} is called and may change the object`;
      continue;
    }
    if (h.source === "MutatingAdmissionPolicy") {
      if (objectUncertain) continue;
      const policy = snapshot.mutatingAdmissionPolicies?.find(
        (p) => p.metadata?.name === h.configuration,
      );
      const ps = paramObjectsOf(policy?.spec?.paramKind, call.params);
      if (!policy || typeof ps === "string") {
        objectUncertain = `${refOf(h)}: ${typeof ps === "string" ? ps : "the policy is not known"}`;
        continue;
      }
      for (const p of ps) {
        const m = evaluateMutating(policy as Parameters<typeof evaluateMutating>[0], {
          request,
          object,
          params: p,
          namespaceObject,
          namespacePartial,
          ...minor,
        });
        if (!m.decided) {
          objectUncertain = `${refOf(h)}: ${m.reason}`;
          break;
        }
        if (m.error !== undefined) {
          objectUncertain = `${refOf(h)} fails: ${m.error}`;
          break;
        }
        object = m.object;
      }
      continue;
    }
    if (h.source !== "ValidatingAdmissionPolicy") continue;
    const ref = refOf(h);
    const policy = snapshot.validatingAdmissionPolicies?.find(
      (p) => p.metadata?.name === h.configuration,
    );
    const binding = snapshot.validatingAdmissionPolicyBindings?.find(
      (b) => b.metadata?.name === h.name,
    );
    const failure = [report.failure, ...report.alsoFailing].find((f) => f?.key === call.key);
    const actions = call.validationActions ?? binding?.spec?.validationActions ?? [];
    if (failure || call.conditionError) {
      const message = failure?.message ?? call.conditionError ?? "";
      const result: PolicyResult = actions.includes("Deny")
        ? "denied"
        : actions.includes("Warn")
          ? "warned"
          : "audited";
      policies.push({
        ref,
        hook: h,
        evaluation: {
          decided: true,
          result,
          denial: result === "denied" ? message : undefined,
          warnings: result === "warned" ? [message] : [],
          auditAnnotations: {},
          failures: [message],
        },
      });
      continue;
    }
    if (objectUncertain) {
      policies.push({ ref, hook: h, evaluation: { decided: false, reason: objectUncertain } });
      continue;
    }
    const ps = paramObjectsOf(policy?.spec?.paramKind, call.params);
    if (!policy || !binding || typeof ps === "string") {
      policies.push({
        ref,
        hook: h,
        evaluation: {
          decided: false,
          reason: typeof ps === "string" ? ps : "the policy or its binding is not known",
        },
      });
      continue;
    }
    const evals = ps.map((p) =>
      evaluateValidating(policy as Parameters<typeof evaluateValidating>[0], binding, {
        request,
        object,
        params: p,
        namespaceObject,
        namespacePartial,
        ...minor,
      }),
    );
    policies.push({ ref, hook: h, evaluation: combineEvaluations(evals) });
  }
  // A binding that fails before it is evaluated (its params not found under Deny, its policy
  // not configurable) is no call: its failure is its decision.
  const calledKeys = new Set(certainCalls(report).map((x) => x.key));
  for (const f of [report.failure, ...report.alsoFailing]) {
    if (!f || calledKeys.has(f.key) || f.hook.source !== "ValidatingAdmissionPolicy") continue;
    policies.push({
      ref: refOf(f.hook),
      hook: f.hook,
      evaluation: {
        decided: true,
        result: "denied",
        denial: f.message,
        warnings: [],
        auditAnnotations: {},
        failures: [f.message],
      },
    });
  }
  for (const p of policies) if (p.evaluation.decided) warnings.push(...p.evaluation.warnings);

  // The verdict: certain refusals first, then what the policies decide, then the webhooks.
  let admitted: boolean | undefined;
  let admittedWhy = "";
  const denied = policies.find((p) => p.evaluation.decided && p.evaluation.result === "denied");
  if (report.rejectedBeforeHooks) {
    admitted = false;
    admittedWhy = `${report.rejectedBeforeHooks.plugin} refuses it: ${report.rejectedBeforeHooks.message}`;
  } else if (report.failure && !denied) {
    admitted = false;
    admittedWhy = report.failure.message;
  } else if (report.podSecurity?.rejects) {
    admitted = false;
    admittedWhy = report.podSecurity.rejection?.message ?? "PodSecurity refuses it";
  } else if (denied && denied.evaluation.decided) {
    admitted = false;
    admittedWhy = denied.evaluation.denial ?? "";
  } else {
    const webhook = certainCalls(report).find(
      (x) =>
        x.hook.source === "MutatingWebhookConfiguration" ||
        x.hook.source === "ValidatingWebhookConfiguration",
    );
    const undecidedPolicy = policies.find((p) => !p.evaluation.decided);
    if (webhook)
      admittedWhy = `the answer of ${refOf(webhook.hook)} decides it (a dry run calls it)`;
    else if (report.indeterminate[0])
      admittedWhy = `whether ${refOf(report.indeterminate[0].hook)} is called cannot be decided offline`;
    else if (undecidedPolicy && !undecidedPolicy.evaluation.decided)
      admittedWhy = `${undecidedPolicy.ref}: ${undecidedPolicy.evaluation.reason}`;
    else if (report.neverSent) admittedWhy = "the request is never sent as given";
    else admitted = true;
  }
  return {
    policies,
    mutated: objectUncertain ? undefined : object,
    mutatedUndecided: objectUncertain,
    warnings,
    admitted,
    admittedWhy,
  };
}

const pass = (expectation: string): CheckResult => ({ expectation, status: "pass", message: "" });
const fail = (expectation: string, message: string): CheckResult => ({
  expectation,
  status: "fail",
  message,
});
const undecided = (expectation: string, message: string): CheckResult => ({
  expectation,
  status: "undecided",
  message,
});

function skipWords(report: Seen, ref: HookRef): string {
  const s = report.skips.find((x) => refMatches(ref, x.hook));
  if (s) return `skipped (${s.code}): ${s.message}`;
  return "no such hook in the configuration";
}

function checkExpectations(
  c: TestCase,
  report: Seen,
  outcome: ChainOutcome,
  dryRun: DryRunOutcome | undefined,
): CheckResult[] {
  const e = c.expect;
  const out: CheckResult[] = [];
  const calls = certainCalls(report);
  const undecidedHooks = report.indeterminate;
  const isUndecided = (ref: HookRef) => undecidedHooks.some((x) => refMatches(ref, x.hook));

  if (e.admitted !== undefined) {
    const name = "admitted";
    if (outcome.admitted !== undefined) {
      out.push(
        outcome.admitted === e.admitted
          ? pass(name)
          : fail(
              name,
              outcome.admitted
                ? "admitted, expected refused"
                : `refused, expected admitted: ${outcome.admittedWhy}`,
            ),
      );
    } else if (dryRun?.kind === "answered") {
      out.push(
        dryRun.allowed === e.admitted
          ? pass(name)
          : fail(
              name,
              dryRun.allowed
                ? "the dry run was admitted, expected refused"
                : `the dry run was refused (${dryRun.status}), expected admitted: ${dryRun.message}`,
            ),
      );
    } else out.push(undecided(name, outcome.admittedWhy));
  }

  if (e.calls !== undefined) {
    const name = "calls";
    const expected = e.calls.map(mustRef);
    const actual = calls.map((x) => refOf(x.hook));
    const same =
      expected.length === calls.length &&
      expected.every((r, i) => refMatches(r, calls[i]?.hook as HookIdentity));
    if (same && undecidedHooks.length === 0) out.push(pass(name));
    else if (!same && undecidedHooks.length === 0)
      out.push(
        fail(
          name,
          `called ${actual.length === 0 ? "nothing" : actual.join(", ")}; expected ${e.calls.join(", ") || "nothing"}`,
        ),
      );
    else
      out.push(
        undecided(
          name,
          `whether ${undecidedHooks.map((x) => refOf(x.hook)).join(", ")} ${undecidedHooks.length > 1 ? "are" : "is"} called cannot be decided offline`,
        ),
      );
  }

  e.called?.forEach((text, i) => {
    const name = `called[${i}]`;
    const ref = mustRef(text);
    if (calls.some((x) => refMatches(ref, x.hook))) out.push(pass(name));
    else if (isUndecided(ref))
      out.push(undecided(name, `whether ${text} is called cannot be decided offline`));
    else out.push(fail(name, `${text} is not called: ${skipWords(report, ref)}`));
  });

  if (e.order !== undefined) {
    const name = "order";
    const positions = e.order.map((text) =>
      calls.findIndex((x) => refMatches(mustRef(text), x.hook)),
    );
    const missing = e.order.filter((_, i) => positions[i] === -1);
    const sorted = positions.every((p, i) => i === 0 || p > (positions[i - 1] ?? -1));
    if (missing.length > 0 && missing.some((t) => isUndecided(mustRef(t))))
      out.push(
        undecided(name, `whether ${missing.join(", ")} is called cannot be decided offline`),
      );
    else if (missing.length > 0) out.push(fail(name, `${missing.join(", ")} not called`));
    else if (!sorted)
      out.push(
        fail(
          name,
          `called in the order ${calls
            .filter((x) => e.order?.some((t) => refMatches(mustRef(t), x.hook)))
            .map((x) => refOf(x.hook))
            .join(", ")}`,
        ),
      );
    else out.push(pass(name));
  }

  e.notCalled?.forEach((text, i) => {
    const name = `notCalled[${i}]`;
    const ref = mustRef(text);
    const call = calls.find((x) => refMatches(ref, x.hook));
    if (call)
      out.push(
        fail(name, `${refOf(call.hook)} is called (stage ${call.stage}, rule ${call.matchedRule})`),
      );
    else if (isUndecided(ref))
      out.push(undecided(name, `whether ${text} is called cannot be decided offline`));
    else out.push(pass(name));
  });

  e.skipped?.forEach((s, i) => {
    const name = `skipped[${i}]`;
    const ref = mustRef(s.hook);
    const skip = report.skips.find((x) => refMatches(ref, x.hook));
    if (!skip) {
      if (isUndecided(ref))
        out.push(undecided(name, `whether ${s.hook} is called cannot be decided offline`));
      else if (calls.some((x) => refMatches(ref, x.hook)))
        out.push(fail(name, `${s.hook} is called`));
      else out.push(fail(name, `${s.hook}: no such hook in the configuration`));
      return;
    }
    const inner = (skip.reason as { inner?: { code?: string } }).inner?.code;
    if (s.reason !== undefined && s.reason !== skip.code && s.reason !== inner)
      out.push(
        fail(
          name,
          `skipped for ${skip.code}${inner ? ` (${inner})` : ""}, expected ${s.reason}: ${skip.message}`,
        ),
      );
    else if (s.message !== undefined && !skip.message.includes(s.message))
      out.push(
        fail(name, `the reason reads "${skip.message}", which does not contain "${s.message}"`),
      );
    else out.push(pass(name));
  });

  e.undecided?.forEach((text, i) => {
    const name = `undecided[${i}]`;
    const ref = mustRef(text);
    if (isUndecided(ref)) out.push(pass(name));
    else
      out.push(
        fail(
          name,
          calls.some((x) => refMatches(ref, x.hook))
            ? `${text} is called for certain`
            : `${text} is not called: ${skipWords(report, ref)}`,
        ),
      );
  });

  e.policies?.forEach((p, i) => {
    const name = `policies[${i}]`;
    const ref = mustRef(p.hook);
    const found = outcome.policies.filter((x) => refMatches(ref, x.hook));
    if (found.length === 0) {
      if (isUndecided(ref))
        out.push(undecided(name, `whether ${p.hook} is called cannot be decided offline`));
      else out.push(fail(name, `${p.hook} is not evaluated: ${skipWords(report, ref)}`));
      return;
    }
    const ev = combineEvaluations(found.map((f) => f.evaluation));
    if (!ev.decided) {
      out.push(undecided(name, ev.reason));
      return;
    }
    const problems: string[] = [];
    if (p.result !== undefined && p.result !== ev.result)
      problems.push(
        `${ev.result}${ev.failures[0] ? ` (${ev.failures[0]})` : ""}, expected ${p.result}`,
      );
    if (p.message !== undefined) {
      const texts = [ev.denial ?? "", ...ev.failures, ...ev.warnings];
      if (!texts.some((t) => t.includes(p.message ?? "")))
        problems.push(
          `no message contains "${p.message}"${ev.failures[0] ? ` (it says "${ev.failures[0]}")` : ""}`,
        );
    }
    for (const w of p.warnings ?? [])
      if (!ev.warnings.some((x) => x.includes(w))) problems.push(`no warning contains "${w}"`);
    for (const [k, v] of Object.entries(p.auditAnnotations ?? {}))
      if (ev.auditAnnotations[k] !== v)
        problems.push(
          `audit annotation ${k} is ${JSON.stringify(ev.auditAnnotations[k] ?? null)}, expected ${JSON.stringify(v)}`,
        );
    out.push(problems.length === 0 ? pass(name) : fail(name, problems.join("; ")));
  });

  e.warnings?.forEach((w, i) => {
    const name = `warnings[${i}]`;
    if (outcome.warnings.some((x) => x.includes(w))) out.push(pass(name));
    else if (dryRun?.kind === "answered" && dryRun.warnings.some((x) => x.includes(w)))
      out.push(pass(name));
    else {
      const open = outcome.policies.find((x) => !x.evaluation.decided);
      if (open && !open.evaluation.decided)
        out.push(undecided(name, `${open.ref}: ${open.evaluation.reason}`));
      else
        out.push(
          fail(
            name,
            `no warning contains "${w}"${outcome.warnings.length ? ` (warnings: ${outcome.warnings.join(" | ")})` : ""}`,
          ),
        );
    }
  });

  if (e.mutatedObject !== undefined) {
    const name = "mutatedObject";
    if (outcome.mutated === undefined) out.push(undecided(name, outcome.mutatedUndecided ?? ""));
    else {
      const a = canonical(outcome.mutated);
      const b = canonical(e.mutatedObject);
      out.push(a === b ? pass(name) : fail(name, `the object after the mutating policies is ${a}`));
    }
  }

  if (e.dryRun !== undefined) {
    const d = e.dryRun;
    const fields: string[] = [];
    if (d.allowed !== undefined) fields.push("allowed");
    if (d.status !== undefined) fields.push("status");
    if (d.message !== undefined) fields.push("message");
    if (d.warnings !== undefined) fields.push("warnings");
    if (d.webhooks !== undefined) fields.push("webhooks");
    if (!dryRun)
      out.push(undecided("dryRun", "checked only with --dry-run (a webhook's own answer)"));
    else if (dryRun.kind === "skipped")
      out.push(undecided("dryRun", `no dry run: ${dryRun.reason}`));
    else {
      if (d.allowed !== undefined)
        out.push(
          d.allowed === dryRun.allowed
            ? pass("dryRun.allowed")
            : fail(
                "dryRun.allowed",
                `${dryRun.allowed ? "admitted" : `refused (${dryRun.status}): ${dryRun.message}`}`,
              ),
        );
      if (d.status !== undefined)
        out.push(
          d.status === dryRun.status
            ? pass("dryRun.status")
            : fail("dryRun.status", `status ${dryRun.status}`),
        );
      if (d.message !== undefined)
        out.push(
          dryRun.message.includes(d.message)
            ? pass("dryRun.message")
            : fail("dryRun.message", `the answer reads "${dryRun.message}"`),
        );
      d.warnings?.forEach((w, i) =>
        out.push(
          dryRun.warnings.some((x) => x.includes(w))
            ? pass(`dryRun.warnings[${i}]`)
            : fail(`dryRun.warnings[${i}]`, `no warning contains "${w}"`),
        ),
      );
      d.webhooks?.forEach((w, i) => {
        const name = `dryRun.webhooks[${i}]`;
        const ref = mustRef(w.hook);
        const webhookName = ref.name ?? ref.configuration;
        const deniedByIt =
          !dryRun.allowed &&
          dryRun.message.includes(`admission webhook "${webhookName}" denied the request`);
        if (!calls.some((x) => refMatches(ref, x.hook)) && !isUndecided(ref)) {
          out.push(fail(name, `${w.hook} is not called: ${skipWords(report, ref)}`));
          return;
        }
        const problems: string[] = [];
        if (w.allowed !== undefined && w.allowed === deniedByIt)
          problems.push(
            deniedByIt ? `it denied the request: ${dryRun.message}` : "it did not deny the request",
          );
        if (w.message !== undefined && !(deniedByIt && dryRun.message.includes(w.message)))
          problems.push(`its answer does not contain "${w.message}"`);
        out.push(problems.length === 0 ? pass(name) : fail(name, problems.join("; ")));
      });
    }
  }
  return out;
}

/** JSON with sorted keys, for comparing objects. */
function canonical(v: unknown): string {
  const sort = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sort);
    if (x !== null && typeof x === "object")
      return Object.fromEntries(
        Object.keys(x)
          .sort()
          .map((k) => [k, sort((x as Record<string, unknown>)[k])]),
      );
    return x;
  };
  return JSON.stringify(sort(v));
}

/** Totals over case results. */
export interface RunSummary {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly errors: number;
}

export function summarize(results: readonly Pick<CaseResult, "status">[]): RunSummary {
  const n = (s: CaseResult["status"]) => results.filter((r) => r.status === s).length;
  return { passed: n("pass"), failed: n("fail"), skipped: n("skip"), errors: n("error") };
}
