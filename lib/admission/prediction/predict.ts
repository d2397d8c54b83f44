/**
 * predict(request, snapshot): which hooks the apiserver calls for one request, in which order
 * and round, which it skips and why, and which cannot be decided offline.
 *
 * Output is shaped for comparison with a recording oracle: `calls` holds certain round-0 calls
 * in call order and "possible" round-1 reinvocations; compare `calls.filter(c => c.round === 0)`
 * keys with what the webhooks recorded.
 *
 * The pipeline, one file per stage:
 *   compile  (compile.ts)        snapshot → hooks with defaults, parsed selectors, rules and CEL;
 *                                equal selectors and condition lists share a slot
 *   index    (hook-index.ts)     per stage: which hooks a resource can reach, the rule-match memo
 *                                keyed by the request's rule signature, flat per-hook flags
 *   match    (match-context.ts,  per request: attributes, labels, and memos by slot; then each
 *             match.ts)          hook's outcome (call, skip with reason, undecided, failure)
 *   order    (order.ts)          the reinvocation round and the worst-case latency
 *   explain  (explain.ts)        sentences for skips, on demand through the Explainer
 * The fast path's tables live on the CompiledSnapshot (built once) and its per-request memos on
 * the MatchContext (one per request): nothing is kept between requests anywhere else.
 *
 * `predict` returns the prediction with its Explainer side by side (the sentences cost nothing
 * until asked); `predictCompiled` is the fast path that returns the prediction alone. One report
 * (lib/admission/report/predict-report) serialises both for the command line and the predict page.
 */
import type { AdmissionRequest, GroupVersionKind } from "@/lib/admission/model/request";
import { unservedOperation } from "@/lib/admission/prediction/served-operations";
import {
  podSecurityVerdict,
  type PodSecurityVerdict,
} from "@/lib/admission/pod-security/admission";
import {
  compileSnapshot,
  type CompiledSnapshot,
  type CompiledPolicyBinding,
  type CompiledWebhook,
} from "@/lib/admission/matching/compile";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import { describeHook, type HookIdentity } from "@/lib/admission/model/hook-identity";
import { createMatchContext, type MatchContext } from "@/lib/admission/matching/match-context";
import {
  RULES_REASON,
  bindingParams,
  explainRules,
  matchPolicyBinding,
  matchWebhook,
  simpleOwnCall,
  type SkipEntry,
  type HookFailure,
  type HookMatch,
  type MatchedVia,
  type SkipReason,
} from "@/lib/admission/matching/match";
import {
  mutatingPolicyExclusion,
  namespaceLifecycleExclusion,
  namespaceLifecycleRejection,
  policyExclusion,
  webhookExclusion,
  type Exclusion,
  type InTreeRejection,
  type NamespaceState,
} from "@/lib/admission/matching/exclusions";
import { describeSkipReason } from "@/lib/admission/matching/explain";
import {
  planReinvocation,
  worstCaseLatency,
  type MutatingCall,
  type ReinvocationTrigger,
  type Stage,
} from "@/lib/admission/prediction/order";
import type { RuleMismatch } from "@/lib/admission/model/rule-matcher";
import type { HookIndex, RuleMatches, WebhookTable } from "@/lib/admission/matching/hook-index";
import type { Equivalent } from "@/lib/admission/matching/equivalence";
import { ruleMatches } from "@/lib/admission/model/rule-matcher";

/** One predicted call. */
export interface PredictedCall {
  readonly stage: Stage;
  readonly round: 0 | 1;
  /** Position in the prediction's call sequence within its stage and round. */
  readonly sequence: number;
  readonly hook: HookIdentity;
  /** Unique across sources: `<source>:<key>`. */
  readonly key: string;
  /** `certain` for round 0; round-1 entries are `possible` (depends on whether hooks mutate). */
  readonly certainty: "certain" | "possible";
  readonly matchedRule: number;
  readonly via: MatchedVia;
  /** Set when matchPolicy Equivalent converted the request for this hook. */
  readonly convertedTo: GroupVersionKind | undefined;
  readonly timeoutSeconds: number;
  readonly failurePolicy: "Fail" | "Ignore";
  readonly parallel: boolean;
  readonly reinvocation: ReinvocationTrigger | undefined;
  readonly reinvocationPolicy: "Never" | "IfNeeded" | undefined;
  readonly validationActions: readonly string[] | undefined;
  /** For policies with a paramRef: how many evaluations depends on params in the cluster. */
  readonly paramsNote: string | undefined;
  /**
   * For policies with a paramKind and a paramRef, when the params were read: the param objects
   * the binding is evaluated with, one evaluation each (`namespace/name`, or `name` for a
   * cluster-scoped kind); undefined otherwise (evaluated once, or unknown: see paramsNote).
   */
  readonly params: readonly string[] | undefined;
  /**
   * A validating policy whose matchConditions fail to evaluate (failurePolicy Fail): its decision
   * is this error, which its validationActions act on (see HookMatch).
   */
  readonly conditionError: string | undefined;
}

/** A hook the request does not reach (its explainer gives the sentence and rule detail). */
export type PredictedSkip = SkipEntry;

/** A hook whose call depends on something this module cannot evaluate offline. */
export interface PredictedIndeterminate {
  readonly stage: Stage;
  readonly hook: HookIdentity;
  readonly key: string;
  readonly via: MatchedVia;
  /** What the call depends on: a matchCondition, or a selector requirement. */
  readonly dependsOn: "matchCondition" | "namespaceSelector" | "objectSelector";
  /** The matchCondition's name, or the selector requirement's text. */
  readonly condition: string;
  readonly reason: string;
  readonly message: string;
  readonly timeoutSeconds: number;
}

/** The request is rejected by admission before a hook is called. */
export interface PredictedFailure {
  readonly stage: Stage;
  readonly hook: HookIdentity;
  readonly key: string;
  readonly status: number;
  readonly message: string;
}

/** Everything predict returns. */
export interface Prediction {
  readonly calls: PredictedCall[];
  readonly skips: PredictedSkip[];
  readonly indeterminate: PredictedIndeterminate[];
  /** The first certain failure, if admission rejects the request before calling some hook. */
  readonly failure: PredictedFailure | undefined;
  /**
   * Other bindings of the failing policy stage that fail too. A policy plugin evaluates every
   * binding before rejecting, in no fixed order, and names one failure: `failure` or one of these.
   */
  readonly alsoFailing: PredictedFailure[];
  /**
   * An in-tree plugin that rejects the request before any hook is consulted (NamespaceLifecycle:
   * a CREATE in a namespace that does not exist or is being terminated, a DELETE of an immortal
   * namespace): then no hook is called.
   */
  readonly rejectedBeforeHooks: InTreeRejection | undefined;
  readonly exclusions: {
    readonly webhooks: Exclusion | undefined;
    readonly policies: Exclusion | undefined;
  };
  /** Serial mutating timeouts (round 1 included when possible) + the largest validating timeout. */
  readonly worstCaseLatencySeconds: number;
  /**
   * What the PodSecurity admission plugin does with the request (pods, pod templates and
   * namespaces; see pod-security/admission.ts), when it evaluates it. It runs after every
   * mutating hook and before the validating policies and webhooks: when it certainly refuses the
   * request (no mutating hook is called that could change the pod), those are not called.
   */
  readonly podSecurity: PodSecurityPrediction | undefined;
}

/** PodSecurity's verdict, and whether it stops the validating hooks. */
export interface PodSecurityPrediction extends PodSecurityVerdict {
  /** It refuses the request for certain: no validating policy or webhook is called. */
  readonly rejects: boolean;
}

/**
 * Skips are recorded compactly and materialised only when `.skips` is read: most hooks are
 * skipped because no rule names the request's resource, and those cost nothing per request.
 */
interface WebhookStageSkips {
  readonly stage: Stage;
  readonly hooks: readonly CompiledWebhook[];
  /** Hooks that were looked at, ascending; any other hook before `stopAt` is a rules skip. */
  readonly visited: number[];
  /** Parallel to `visited`: why it was skipped, or undefined when it was not. */
  readonly outcome: Array<SkipReason | undefined>;
  /** Hooks from here on are skipped with `reason` (not reached, or excluded). */
  stopAt: number;
  reason: SkipReason | undefined;
}

type SkipSegment = PredictedSkip[] | WebhookStageSkips;

interface Acc {
  readonly ctx: MatchContext;
  readonly calls: PredictedCall[];
  /** Explicit skips go to the last segment when it is a list. */
  readonly segments: SkipSegment[];
  readonly indeterminate: PredictedIndeterminate[];
  failure: PredictedFailure | undefined;
  readonly alsoFailing: PredictedFailure[];
  notReached?: SkipReason;
}

type Hook = CompiledWebhook | CompiledPolicyBinding;

// One shared reason per prediction: every hook after a failure has the same one.
function notReached(acc: Acc): SkipReason {
  const f = acc.failure as PredictedFailure;
  acc.notReached ??= { code: "not-reached", failedAt: describeHook(f.hook) };
  return acc.notReached;
}

function skipEntry(
  stage: Stage,
  h: { id: HookIdentity; key: string },
  reason: SkipReason,
): SkipEntry {
  return { stage, hook: h.id, key: h.key, reason };
}

function isWebhook(h: Hook): h is CompiledWebhook {
  return "timeoutSeconds" in h;
}

function explainHookRules(h: Hook, ctx: MatchContext): RuleMismatch[] {
  if (isWebhook(h)) return explainRules(h.match.rules, h.match.matchPolicy, ctx);
  const c = h.constraints;
  if (!c) return [];
  // Report the binding's rules when the policy's own rules matched.
  let own = c.rules.length === 0;
  for (const rule of c.rules) own ||= ruleMatches(rule, ctx.attrs);
  const m = own && h.bindingMatch ? h.bindingMatch : c;
  return explainRules(m.rules, m.matchPolicy, ctx);
}

function pushSkip(acc: Acc, skip: PredictedSkip): void {
  const last = acc.segments[acc.segments.length - 1];
  if (Array.isArray(last)) last.push(skip);
  else acc.segments.push([skip]);
}

function materialiseSkips(segments: readonly SkipSegment[]): PredictedSkip[] {
  const out: PredictedSkip[] = [];
  for (const seg of segments) {
    if (Array.isArray(seg)) {
      for (const x of seg) out.push(x);
      continue;
    }
    const { hooks, visited, outcome, stopAt } = seg;
    let v = 0;
    for (let i = 0; i < stopAt; i++) {
      const h = hooks[i] as CompiledWebhook;
      if (v < visited.length && visited[v] === i) {
        const reason = outcome[v++];
        if (reason === RULES_REASON) out.push(h.rulesSkip);
        else if (reason) out.push(skipEntry(seg.stage, h, reason));
      } else out.push(h.rulesSkip);
    }
    const reason = seg.reason;
    if (reason)
      for (let i = stopAt; i < hooks.length; i++)
        out.push(skipEntry(seg.stage, hooks[i] as CompiledWebhook, reason));
  }
  return out;
}

/**
 * The request's failure at `h`: the first, or another of the same policy stage. A policy-level
 * error is one error however many bindings the policy has: its other bindings add nothing.
 */
function fail(acc: Acc, stage: Stage, h: Hook, f: HookFailure): void {
  const failure = { stage, hook: h.id, key: h.key, status: f.status, message: f.message };
  if (!acc.failure) acc.failure = failure;
  else if (
    acc.failure.stage === stage &&
    !isWebhook(h) &&
    acc.failure.message !== f.message &&
    !acc.alsoFailing.some((x) => x.message === f.message)
  )
    acc.alsoFailing.push(failure);
}

/** Records a call, indeterminate hook or failure; returns the reason when skipped. */
function record(
  acc: Acc,
  stage: Stage,
  h: Hook,
  m: HookMatch,
  sequence: number,
): SkipReason | undefined {
  const webhook = isWebhook(h);
  const timeout = webhook ? h.timeoutSeconds : 0;
  switch (m.kind) {
    case "skip":
      return m.reason;
    case "indeterminate":
      acc.indeterminate.push({
        stage,
        hook: h.id,
        key: h.key,
        via: m.via,
        dependsOn: m.dependsOn,
        condition: m.condition,
        reason: m.reason,
        message: `depends on ${m.dependsOn} ${m.condition}: ${m.reason}`,
        timeoutSeconds: timeout,
      });
      return undefined;
    case "fail":
      fail(acc, stage, h, m.failure);
      return undefined;
    case "call": {
      if (webhook) {
        pushCall(acc, stage, h, m.via, sequence);
        return undefined;
      }
      if (m.failure) fail(acc, stage, h, m.failure);
      acc.calls.push({
        stage,
        round: 0,
        sequence,
        hook: h.id,
        key: h.key,
        certainty: "certain",
        matchedRule: m.via.ruleIndex,
        via: m.via,
        convertedTo: m.via.converted ? m.via.kind : undefined,
        timeoutSeconds: 0,
        failurePolicy: h.failurePolicy,
        parallel: stage === "validating-webhook",
        reinvocation: undefined,
        reinvocationPolicy:
          stage === "mutating-webhook" || stage === "mutating-policy"
            ? h.reinvocationPolicy
            : undefined,
        validationActions: h.type === "validating" ? h.validationActions : undefined,
        ...paramsOf(h, acc.ctx),
        conditionError: m.conditionError,
      });
      return undefined;
    }
  }
}

function paramsOf(
  h: CompiledPolicyBinding,
  ctx: MatchContext,
): { paramsNote: string | undefined; params: readonly string[] | undefined } {
  // Without a paramKind the apiserver ignores a paramRef: one evaluation, params null.
  if (!h.paramRef || h.paramKind === undefined) return { paramsNote: undefined, params: undefined };
  const p = bindingParams(h, ctx);
  if (p.kind === "found")
    return {
      paramsNote: `evaluated once per param object: ${p.names.length} found (${p.names.join(", ")})`,
      params: p.names,
    };
  return {
    paramsNote: `evaluated once per param object found by paramRef (params not read); none found: ${h.paramRef.notFoundAction === "Allow" ? "not evaluated" : "failurePolicy applies"}`,
    params: undefined,
  };
}

/** A webhook's round-0 call. */
function pushCall(
  acc: Acc,
  stage: Stage,
  h: CompiledWebhook,
  via: MatchedVia,
  sequence: number,
): void {
  acc.calls.push({
    stage,
    round: 0,
    sequence,
    hook: h.id,
    key: h.key,
    certainty: "certain",
    matchedRule: via.ruleIndex,
    via,
    convertedTo: via.converted ? via.kind : undefined,
    timeoutSeconds: h.timeoutSeconds,
    failurePolicy: h.failurePolicy,
    parallel: stage === "validating-webhook",
    reinvocation: undefined,
    reinvocationPolicy:
      stage === "mutating-webhook" || stage === "mutating-policy"
        ? h.reinvocationPolicy
        : undefined,
    validationActions: undefined,
    paramsNote: undefined,
    params: undefined,
    conditionError: undefined,
  });
}

function skipAll(acc: Acc, stage: Stage, hooks: readonly Hook[], reason: SkipReason): void {
  for (const h of hooks) pushSkip(acc, skipEntry(stage, h, reason));
}

function runPolicies(
  acc: Acc,
  stage: Stage,
  hooks: readonly CompiledPolicyBinding[],
  excl: Exclusion | undefined,
): void {
  if (excl) return skipAll(acc, stage, hooks, { code: "excluded", message: excl.message });
  let seq = 0;
  const failedBefore = acc.failure;
  for (const h of hooks) {
    if (failedBefore) {
      pushSkip(acc, skipEntry(stage, h, notReached(acc)));
      continue;
    }
    // All tuples are evaluated before the plugin reports a failure, so keep going.
    const m = matchPolicyBinding(h, acc.ctx);
    const skip = record(acc, stage, h, m, seq);
    if (skip) pushSkip(acc, skipEntry(stage, h, skip));
    else if (m.kind === "call") seq++;
  }
}

function runWebhooks(
  acc: Acc,
  stage: Stage,
  hooks: readonly CompiledWebhook[],
  index: HookIndex,
  table: WebhookTable,
  own: RuleMatches,
  excl: Exclusion | undefined,
  serial: boolean,
): void {
  const rec: WebhookStageSkips = {
    stage,
    hooks,
    visited: [],
    outcome: [],
    stopAt: hooks.length,
    reason: undefined,
  };
  acc.segments.push(rec);
  if (excl) {
    rec.stopAt = 0;
    rec.reason = { code: "excluded", message: excl.message };
    return;
  }
  if (acc.failure) {
    rec.stopAt = 0;
    rec.reason = notReached(acc);
    return;
  }
  const ctx = acc.ctx;
  const matched = own.hooks;
  // Hooks whose rules miss the request's own GVR can still match through an equivalent; only
  // hooks the index lists for some equivalent's resource can.
  const candidates =
    ctx.equivalents.length > 1 ? equivalentCandidates(index, ctx.equivalents) : matched;
  let seq = 0;
  let c = 0;
  for (let k = 0; k < candidates.length; k++) {
    const i = candidates[k] as number;
    const h = hooks[i] as CompiledWebhook;
    let m: HookMatch;
    if (c < matched.length && matched[c] === i) {
      const ruleIndex = own.rules[c++] as number;
      const call = simpleOwnCall(h, table, i, ctx, ruleIndex);
      if (call) {
        rec.visited.push(i);
        rec.outcome.push(undefined);
        pushCall(acc, stage, h, call.via, seq++);
        continue;
      }
      m = matchWebhook(h, ctx, ruleIndex);
    } else if (h.match.matchPolicy === "Equivalent") m = matchWebhook(h, ctx);
    else continue;
    rec.visited.push(i);
    rec.outcome.push(record(acc, stage, h, m, seq));
    if (m.kind === "call") seq++;
    if (serial && acc.failure) {
      rec.stopAt = i + 1;
      rec.reason = notReached(acc);
      return;
    }
  }
}

// Sorted union of the index candidates for every equivalent's resource name.
function equivalentCandidates(index: HookIndex, equivalents: readonly Equivalent[]): Int32Array {
  const seen = new Uint8Array(index.size);
  let n = 0;
  for (const eq of equivalents)
    for (const h of index.candidates(eq.gvr.resource))
      if (seen[h] === 0) {
        seen[h] = 1;
        n++;
      }
  const out = new Int32Array(n);
  let k = 0;
  for (let h = 0; h < seen.length; h++) if (seen[h] === 1) out[k++] = h;
  return out;
}

function isMutatingCall(c: PredictedCall): c is PredictedCall & MutatingCall {
  return (
    (c.stage === "mutating-policy" || c.stage === "mutating-webhook") &&
    c.reinvocationPolicy !== undefined
  );
}

/** Predicts against a compiled snapshot (compile once with `compileSnapshot`): the fast path. */
export function predictCompiled(request: AdmissionRequest, snapshot: CompiledSnapshot): Prediction {
  return run(request, snapshot).prediction;
}

/**
 * The request's namespace as NamespaceLifecycle finds it: terminating when the snapshot says so,
 * missing when the snapshot lists the cluster's namespaces and the stored one is not among them
 * (labels the caller gave for it stand for one that exists).
 */
function namespaceState(
  request: AdmissionRequest,
  snapshot: CompiledSnapshot,
  ctx: MatchContext,
): NamespaceState {
  const ns = request.namespace ?? "";
  if (ns !== "" && snapshot.terminatingNamespaces.has(ns)) return "terminating";
  if (snapshot.namespacesKnown && ctx.nsSource.kind === "stored" && ctx.nsLabels === null)
    return "missing";
  return "active";
}

/**
 * PodSecurity's verdict on the request, from its namespace's labels (the stored ones, or those
 * the caller gave). A refusal is certain only when no mutating hook may be called before it: any
 * of them could change the pod.
 */
function podSecurityPrediction(
  request: AdmissionRequest,
  ctx: MatchContext,
  acc: Acc,
): PodSecurityPrediction | undefined {
  const verdict = podSecurityVerdict(request, ctx.nsLabels ?? undefined);
  if (!verdict) return undefined;
  const mutating = new Set<string>();
  const isMutating = (stage: Stage) => stage === "mutating-policy" || stage === "mutating-webhook";
  for (const c of acc.calls) if (isMutating(c.stage)) mutating.add(c.key);
  for (const x of acc.indeterminate) if (isMutating(x.stage)) mutating.add(x.key);
  const mayChange =
    mutating.size > 0
      ? `it evaluates the object as the mutating hooks leave it, and ${mutating.size === 1 ? "one mutating hook" : `${mutating.size} mutating hooks`} may be called before it`
      : undefined;
  const undecided = verdict.undecided ?? mayChange;
  return {
    ...verdict,
    undecided,
    rejects: verdict.rejection !== undefined && undecided === undefined,
  };
}

function run(
  request: AdmissionRequest,
  snapshot: CompiledSnapshot,
): { prediction: Prediction; ctx: MatchContext } {
  const ctx = createMatchContext(request, snapshot);
  const acc: Acc = {
    ctx,
    calls: [],
    segments: [],
    indeterminate: [],
    failure: undefined,
    alsoFailing: [],
  };
  // A request whose operation its resource does not serve never reaches admission; then
  // NamespaceLifecycle runs before the policy and webhook plugins: its rejection ends admission.
  const unserved = unservedOperation(request, snapshot.equivalence.resourceInfo(request));
  const nsState = namespaceState(request, snapshot, ctx);
  const rejected = unserved ? unserved.rejection : namespaceLifecycleRejection(request, nsState);
  const before =
    unserved?.exclusion ?? (rejected && namespaceLifecycleExclusion(request, rejected, nsState));
  const wExcl = before ?? webhookExclusion(request, snapshot.excludeVirtualResources);
  const pExcl = before ?? policyExclusion(request);

  runInitializers(acc, request, snapshot, before);
  runPolicies(
    acc,
    "mutating-policy",
    snapshot.mutatingPolicies,
    before ?? mutatingPolicyExclusion(request),
  );
  runWebhooks(
    acc,
    "mutating-webhook",
    snapshot.mutating,
    snapshot.mutatingIndex,
    snapshot.mutatingTable,
    snapshot.mutatingRuleMatches(ctx.attrs, ctx.ruleSignature),
    wExcl,
    true,
  );

  // Mutating calls carry what the planner reads (their reinvocationPolicy is always set).
  const round0: Array<PredictedCall & MutatingCall> = [];
  const mutatingTimeouts: number[] = [];
  for (const c of acc.calls) {
    if (!isMutatingCall(c)) continue;
    round0.push(c);
    mutatingTimeouts.push(c.timeoutSeconds);
  }
  if (!acc.failure) {
    let seq = 0;
    for (const { call, trigger } of planReinvocation(round0)) {
      const first = call as PredictedCall & MutatingCall;
      // Spelled out (same keys, same order as round 0): cheaper than a spread.
      acc.calls.push({
        stage: first.stage,
        round: 1,
        sequence: seq++,
        hook: first.hook,
        key: first.key,
        certainty: "possible",
        matchedRule: first.matchedRule,
        via: first.via,
        convertedTo: first.convertedTo,
        timeoutSeconds: first.timeoutSeconds,
        failurePolicy: first.failurePolicy,
        parallel: first.parallel,
        reinvocation: trigger,
        reinvocationPolicy: first.reinvocationPolicy,
        validationActions: first.validationActions,
        paramsNote: first.paramsNote,
        params: first.params,
        conditionError: first.conditionError,
      });
      mutatingTimeouts.push(call.timeoutSeconds);
    }
  }

  // PodSecurity runs first in the validating phase, on the object as the mutating hooks left it.
  const podSecurity = before || acc.failure ? undefined : podSecurityPrediction(request, ctx, acc);
  const refused: Exclusion | undefined = podSecurity?.rejects
    ? {
        code: "pod-security",
        message: `the PodSecurity admission plugin refuses the request first (${podSecurity.rejection?.status ?? 403}: see PodSecurity), before every validating policy and webhook`,
      }
    : undefined;
  runPolicies(acc, "validating-policy", snapshot.validatingPolicies, refused ?? pExcl);
  runWebhooks(
    acc,
    "validating-webhook",
    snapshot.validating,
    snapshot.validatingIndex,
    snapshot.validatingTable,
    snapshot.validatingRuleMatches(ctx.attrs, ctx.ruleSignature),
    refused ?? wExcl,
    false,
  );

  const validatingTimeouts: number[] = [];
  for (const c of acc.calls)
    if (c.stage === "validating-webhook") validatingTimeouts.push(c.timeoutSeconds);
  // An undecided hook may still be called: count it in the worst case.
  for (const x of acc.indeterminate) {
    if (x.stage === "mutating-webhook") mutatingTimeouts.push(x.timeoutSeconds);
    else if (x.stage === "validating-webhook") validatingTimeouts.push(x.timeoutSeconds);
  }
  // `skips` is an own enumerable accessor (spreads, JSON and equality checks see the array),
  // defined in place so the key order stays that of the interface; a shared getter function
  // keeps that cheap. The symbol keys stay out of JSON.
  const prediction = { calls: acc.calls } as Mutable<Prediction> & LazySkips;
  Object.defineProperty(prediction, "skips", SKIPS_PROPERTY);
  prediction.indeterminate = acc.indeterminate;
  prediction.failure = acc.failure;
  prediction.alsoFailing = acc.alsoFailing;
  prediction.rejectedBeforeHooks = rejected;
  prediction.exclusions = { webhooks: wExcl, policies: pExcl };
  prediction.worstCaseLatencySeconds = worstCaseLatency(mutatingTimeouts, validatingTimeouts);
  prediction.podSecurity = podSecurity;
  prediction[SKIPS] = { segments: acc.segments, skips: undefined };
  return { prediction, ctx };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const SKIPS: unique symbol = Symbol("portcullis.predictionSkips");
interface LazySkips {
  [SKIPS]: { readonly segments: readonly SkipSegment[]; skips: PredictedSkip[] | undefined };
}

function readSkips(this: LazySkips): PredictedSkip[] {
  const state = this[SKIPS];
  return (state.skips ??= materialiseSkips(state.segments));
}

const SKIPS_PROPERTY: PropertyDescriptor = Object.freeze({
  get: readSkips,
  enumerable: true,
  configurable: true,
});

/**
 * Explains a prediction's skips in words (and per rule, for rules skips), from the request and
 * snapshot the prediction was made from. Built beside the prediction; costs nothing until asked.
 */
export interface Explainer {
  skip(skip: PredictedSkip): { message: string; ruleMismatches: RuleMismatch[] };
}

/** A prediction with its explainer, side by side. */
export interface Explained {
  readonly prediction: Prediction;
  readonly explainer: Explainer;
}

function explainerFor(ctx: MatchContext): Explainer {
  let byKey: Map<string, Hook> | undefined;
  const hookByKey = (key: string): Hook | undefined => {
    if (!byKey) {
      byKey = new Map<string, Hook>();
      const s = ctx.snapshot;
      for (const list of [s.mutating, s.validating, s.mutatingPolicies, s.validatingPolicies])
        for (const h of list) byKey.set(h.key, h);
    }
    return byKey.get(key);
  };
  return {
    skip(skip) {
      const code = skip.reason.code === "binding" ? skip.reason.inner.code : skip.reason.code;
      const hook = code === "rules" ? hookByKey(skip.key) : undefined;
      const ruleMismatches = hook ? explainHookRules(hook, ctx) : [];
      return {
        message: describeSkipReason(skip.reason, ctx.request, ruleMismatches),
        ruleMismatches,
      };
    },
  };
}

function runInitializers(
  acc: Acc,
  r: AdmissionRequest,
  s: CompiledSnapshot,
  excl: Exclusion | undefined,
): void {
  if (excl) {
    const reason: SkipReason = { code: "excluded", message: excl.message };
    for (const init of s.initializers) pushSkip(acc, skipEntry("initializer", init, reason));
    return;
  }
  let seq = 0;
  for (const init of s.initializers) {
    const applies =
      r.operation === "CREATE" &&
      r.subresource === "" &&
      init.rules.some((rule) => ruleMatches(rule, acc.ctx.attrs));
    if (!applies) {
      pushSkip(acc, skipEntry("initializer", init, RULES_REASON));
      continue;
    }
    acc.calls.push({
      stage: "initializer",
      round: 0,
      sequence: seq++,
      hook: init.id,
      key: init.key,
      certainty: "certain",
      matchedRule: init.rules.findIndex((rule) => ruleMatches(rule, acc.ctx.attrs)),
      via: {
        resource: { group: r.group, version: r.version, resource: r.resource },
        subresource: "",
        kind: r.kind,
        converted: false,
        ruleIndex: 0,
      },
      convertedTo: undefined,
      timeoutSeconds: 0,
      failurePolicy: "Ignore",
      parallel: false,
      reinvocation: undefined,
      reinvocationPolicy: undefined,
      validationActions: undefined,
      paramsNote: undefined,
      params: undefined,
      conditionError: undefined,
    });
  }
}

/**
 * Predicts one request (compiling the snapshot unless it is compiled; compile once yourself when
 * predicting often) and returns the prediction with its explainer.
 */
export function predict(
  request: AdmissionRequest,
  snapshot: AdmissionSnapshot | CompiledSnapshot,
): Explained {
  const compiled = "mutatingIndex" in snapshot ? snapshot : compileSnapshot(snapshot);
  const { prediction, ctx } = run(request, compiled);
  return { prediction, explainer: explainerFor(ctx) };
}
