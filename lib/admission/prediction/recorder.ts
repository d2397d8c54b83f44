/**
 * What a prediction has found so far, stage by stage (predict.ts runs the stages): the calls in
 * call order, the hooks left undecided, the first failure (and the others of the same policy
 * stage), and the skips. Then the Prediction made of them.
 *
 * Skips are kept compact and spelled out only when a prediction's `skips` is read: most hooks
 * are skipped because no rule names the request's resource, and a webhook stage records only the
 * hooks it looked at (WebhookStageSkips); every other hook before where it stopped is a rules skip.
 */
import type { HookIdentity } from "@/lib/admission/model/hook-identity";
import type {
  CompiledPolicyBinding,
  CompiledWebhook,
  HookFailure,
  HookMatch,
  MatchedVia,
  SkipEntry,
  SkipReason,
} from "@/lib/admission/matching/compiled";
import { RULES_REASON, bindingParams } from "@/lib/admission/matching/match";
import type { MatchContext } from "@/lib/admission/matching/match-context";
import type { Exclusion, InTreeRejection } from "@/lib/admission/matching/exclusions";
import { describeHook } from "@/lib/admission/model/hook-identity";
import type { Stage } from "@/lib/admission/prediction/order";
import type {
  PodSecurityPrediction,
  PredictedCall,
  PredictedFailure,
  PredictedIndeterminate,
  PredictedSkip,
  Prediction,
} from "@/lib/admission/prediction/result";

export type Hook = CompiledWebhook | CompiledPolicyBinding;

/**
 * One webhook stage's skips: the hooks it looked at and why each was skipped (if it was); any
 * other hook before `stopAt` is a rules skip, and every hook from `stopAt` on is skipped with
 * `reason` (not reached, or excluded).
 */
export interface WebhookStageSkips {
  readonly stage: Stage;
  readonly hooks: readonly CompiledWebhook[];
  /** Hooks that were looked at, ascending. */
  readonly visited: number[];
  /** Parallel to `visited`: why it was skipped, or undefined when it was not. */
  readonly outcome: Array<SkipReason | undefined>;
  stopAt: number;
  reason: SkipReason | undefined;
}

type SkipSegment = PredictedSkip[] | WebhookStageSkips;

/** The findings so far of one prediction. */
export interface PredictionRecord {
  readonly ctx: MatchContext;
  readonly calls: PredictedCall[];
  /** Explicit skips go to the last segment when it is a list. */
  readonly segments: SkipSegment[];
  readonly indeterminate: PredictedIndeterminate[];
  failure: PredictedFailure | undefined;
  readonly alsoFailing: PredictedFailure[];
  notReached?: SkipReason;
}

export function newRecord(ctx: MatchContext): PredictionRecord {
  return {
    ctx,
    calls: [],
    segments: [],
    indeterminate: [],
    failure: undefined,
    alsoFailing: [],
  };
}

/** Why every hook after the failure is skipped: one shared reason per prediction. */
export function notReached(acc: PredictionRecord): SkipReason {
  const f = acc.failure as PredictedFailure;
  acc.notReached ??= { code: "not-reached", failedAt: describeHook(f.hook) };
  return acc.notReached;
}

export function excluded(excl: Exclusion): SkipReason {
  return { code: "excluded", message: excl.message };
}

export function skipEntry(
  stage: Stage,
  h: { id: HookIdentity; key: string },
  reason: SkipReason,
): SkipEntry {
  return { stage, hook: h.id, key: h.key, reason };
}

export function isWebhook(h: Hook): h is CompiledWebhook {
  return "timeoutSeconds" in h;
}

export function pushSkip(acc: PredictionRecord, skip: PredictedSkip): void {
  const last = acc.segments[acc.segments.length - 1];
  if (Array.isArray(last)) last.push(skip);
  else acc.segments.push([skip]);
}

export function skipAll(
  acc: PredictionRecord,
  stage: Stage,
  hooks: readonly Hook[],
  reason: SkipReason,
): void {
  for (const h of hooks) pushSkip(acc, skipEntry(stage, h, reason));
}

/** Opens a webhook stage's compact skips; every hook is a rules skip until recorded otherwise. */
export function openWebhookSkips(
  acc: PredictionRecord,
  stage: Stage,
  hooks: readonly CompiledWebhook[],
): WebhookStageSkips {
  const rec: WebhookStageSkips = {
    stage,
    hooks,
    visited: [],
    outcome: [],
    stopAt: hooks.length,
    reason: undefined,
  };
  acc.segments.push(rec);
  return rec;
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
function fail(acc: PredictionRecord, stage: Stage, h: Hook, f: HookFailure): void {
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

/** Records a hook's match: a call, an undecided hook or a failure; returns the reason when skipped. */
export function recordMatch(
  acc: PredictionRecord,
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
        recordWebhookCall(acc, stage, h, m.via, sequence);
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
export function recordWebhookCall(
  acc: PredictionRecord,
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

/** What the stages found besides the record's calls, skips, undecided hooks and failures. */
export interface PredictionExtras {
  readonly rejectedBeforeHooks: InTreeRejection | undefined;
  readonly exclusions: Prediction["exclusions"];
  readonly worstCaseLatencySeconds: number;
  readonly podSecurity: PodSecurityPrediction | undefined;
}

/** The prediction made of the record (its skips spelled out on first read). */
export function toPrediction(acc: PredictionRecord, extras: PredictionExtras): Prediction {
  // `skips` is an own enumerable accessor (spreads, JSON and equality checks see the array),
  // defined in place so the key order stays that of the interface; a shared getter function
  // keeps that cheap. The symbol keys stay out of JSON.
  const prediction = { calls: acc.calls } as Mutable<Prediction> & LazySkips;
  Object.defineProperty(prediction, "skips", SKIPS_PROPERTY);
  prediction.indeterminate = acc.indeterminate;
  prediction.failure = acc.failure;
  prediction.alsoFailing = acc.alsoFailing;
  prediction.rejectedBeforeHooks = extras.rejectedBeforeHooks;
  prediction.exclusions = extras.exclusions;
  prediction.worstCaseLatencySeconds = extras.worstCaseLatencySeconds;
  prediction.podSecurity = extras.podSecurity;
  prediction[SKIPS] = { segments: acc.segments, skips: undefined };
  return prediction;
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
