/**
 * predict(request, snapshot): which hooks the apiserver calls for one request, in which order
 * and round, which it skips and why, and which cannot be decided offline.
 *
 * Output is shaped for comparison with a recording oracle: `calls` holds certain round-0 calls
 * in call order and "possible" round-1 reinvocations; compare `calls.filter(c => c.round === 0)`
 * keys with what the webhooks recorded.
 */
import type { AdmissionRequest, GroupVersionKind } from "@/lib/admission/request";
import {
  compileSnapshot,
  type CompiledSnapshot,
  type CompiledPolicyBinding,
  type CompiledWebhook,
} from "@/lib/admission/compile";
import type { AdmissionSnapshot } from "@/lib/admission/snapshot";
import { describeHook, type HookIdentity } from "@/lib/admission/hook-identity";
import { createMatchContext, type MatchContext } from "@/lib/admission/match-context";
import {
  RULES_REASON,
  explainRules,
  matchPolicyBinding,
  matchWebhook,
  type SkipEntry,
  type HookMatch,
  type MatchedVia,
  type SkipReason,
} from "@/lib/admission/match";
import { policyExclusion, webhookExclusion, type Exclusion } from "@/lib/admission/exclusions";
import { describeSkipReason, serializeSkipReason } from "@/lib/admission/explain";
import {
  planReinvocation,
  worstCaseLatency,
  type MutatingCall,
  type ReinvocationTrigger,
  type Stage,
} from "@/lib/admission/order";
import type { RuleMismatch } from "@/lib/admission/rules";
import type { RuleMatches } from "@/lib/admission/hook-index";
import { ruleMatches } from "@/lib/admission/rules";

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
}

/** A hook the request does not reach (see `explainSkip` for the sentence and rule detail). */
export type PredictedSkip = SkipEntry;

/** A hook whose call depends on something this module cannot evaluate offline. */
export interface PredictedIndeterminate {
  readonly stage: Stage;
  readonly hook: HookIdentity;
  readonly key: string;
  readonly via: MatchedVia;
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
  readonly exclusions: {
    readonly webhooks: Exclusion | undefined;
    readonly policies: Exclusion | undefined;
  };
  /** Serial mutating timeouts (round 1 included when possible) + the largest validating timeout. */
  readonly worstCaseLatencySeconds: number;
}

interface Acc {
  readonly ctx: MatchContext;
  readonly calls: PredictedCall[];
  readonly skips: PredictedSkip[];
  readonly indeterminate: PredictedIndeterminate[];
  failure: PredictedFailure | undefined;
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

function record(acc: Acc, stage: Stage, h: Hook, m: HookMatch, sequence: number): boolean {
  const webhook = isWebhook(h);
  const timeout = webhook ? h.timeoutSeconds : 0;
  switch (m.kind) {
    case "skip":
      acc.skips.push(
        m.reason === RULES_REASON && isWebhook(h) ? h.rulesSkip : skipEntry(stage, h, m.reason),
      );
      return false;
    case "indeterminate":
      acc.indeterminate.push({
        stage,
        hook: h.id,
        key: h.key,
        via: m.via,
        condition: m.condition,
        reason: m.reason,
        message: `depends on matchCondition ${m.condition}: ${m.reason}`,
        timeoutSeconds: timeout,
      });
      return false;
    case "fail":
      acc.failure ??= {
        stage,
        hook: h.id,
        key: h.key,
        status: m.failure.status,
        message: m.failure.message,
      };
      return false;
    case "call": {
      const pb = webhook ? undefined : h;
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
        timeoutSeconds: timeout,
        failurePolicy: h.failurePolicy,
        parallel: stage === "validating-webhook",
        reinvocation: undefined,
        reinvocationPolicy:
          stage === "mutating-webhook" || stage === "mutating-policy"
            ? h.reinvocationPolicy
            : undefined,
        validationActions: pb && pb.type === "validating" ? pb.validationActions : undefined,
        paramsNote: pb?.paramRef
          ? `evaluated once per param object found by paramRef; none found: ${pb.paramRef.notFoundAction === "Allow" ? "not evaluated" : "failurePolicy applies"}`
          : undefined,
      });
      return true;
    }
  }
}

function skipAll(acc: Acc, stage: Stage, hooks: readonly Hook[], reason: SkipReason): void {
  for (const h of hooks) acc.skips.push(skipEntry(stage, h, reason));
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
      acc.skips.push(skipEntry(stage, h, notReached(acc)));
      continue;
    }
    // All tuples are evaluated before the plugin reports a failure, so keep going.
    if (record(acc, stage, h, matchPolicyBinding(h, acc.ctx), seq)) seq++;
  }
}

function runWebhooks(
  acc: Acc,
  stage: Stage,
  hooks: readonly CompiledWebhook[],
  own: RuleMatches,
  excl: Exclusion | undefined,
  serial: boolean,
): void {
  if (excl) return skipAll(acc, stage, hooks, { code: "excluded", message: excl.message });
  const ctx = acc.ctx;
  const failedBefore = acc.failure;
  // Hooks whose rules miss the request's own GVR can still match through an equivalent.
  const hasEquivalents = ctx.equivalents.length > 1;
  const matched = own.hooks;
  let seq = 0;
  let c = 0;
  for (let i = 0; i < hooks.length; i++) {
    const h = hooks[i] as CompiledWebhook;
    const isMatched = c < matched.length && matched[c] === i;
    const ruleIndex = isMatched ? (own.rules[c] as number) : -1;
    if (isMatched) c++;
    if (failedBefore || (serial && acc.failure)) {
      acc.skips.push(skipEntry(stage, h, notReached(acc)));
      continue;
    }
    if (isMatched) {
      if (record(acc, stage, h, matchWebhook(h, ctx, ruleIndex), seq)) seq++;
    } else if (hasEquivalents && h.match.matchPolicy === "Equivalent") {
      if (record(acc, stage, h, matchWebhook(h, ctx), seq)) seq++;
    } else {
      acc.skips.push(h.rulesSkip);
    }
  }
}

/** Predicts against a compiled snapshot (compile once with `compileSnapshot`). */
export function predictCompiled(request: AdmissionRequest, snapshot: CompiledSnapshot): Prediction {
  const ctx = createMatchContext(request, snapshot);
  const acc: Acc = { ctx, calls: [], skips: [], indeterminate: [], failure: undefined };
  const wExcl = webhookExclusion(request, snapshot.excludeVirtualResources);
  const pExcl = policyExclusion(request);

  runInitializers(acc, request, snapshot);
  runPolicies(acc, "mutating-policy", snapshot.mutatingPolicies, pExcl);
  runWebhooks(
    acc,
    "mutating-webhook",
    snapshot.mutating,
    snapshot.mutatingRuleMatches(ctx.attrs),
    wExcl,
    true,
  );

  const round0: MutatingCall[] = [];
  const byKey = new Map<string, PredictedCall>();
  for (const c of acc.calls) {
    if (c.stage !== "mutating-policy" && c.stage !== "mutating-webhook") continue;
    const reinvocationPolicy = c.reinvocationPolicy ?? "Never";
    round0.push({
      key: c.key,
      stage: c.stage,
      reinvocationPolicy,
      timeoutSeconds: c.timeoutSeconds,
    });
    byKey.set(c.key, c);
  }
  const mutatingTimeouts = round0.map((c) => c.timeoutSeconds);
  if (!acc.failure) {
    let seq = 0;
    for (const { call, trigger } of planReinvocation(round0)) {
      const first = byKey.get(call.key) as PredictedCall;
      acc.calls.push({
        ...first,
        round: 1,
        sequence: seq++,
        certainty: "possible",
        reinvocation: trigger,
      });
      mutatingTimeouts.push(call.timeoutSeconds);
    }
  }

  runPolicies(acc, "validating-policy", snapshot.validatingPolicies, pExcl);
  runWebhooks(
    acc,
    "validating-webhook",
    snapshot.validating,
    snapshot.validatingRuleMatches(ctx.attrs),
    wExcl,
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
  const prediction: Prediction = {
    calls: acc.calls,
    skips: acc.skips,
    indeterminate: acc.indeterminate,
    failure: acc.failure,
    exclusions: { webhooks: wExcl, policies: pExcl },
    worstCaseLatencySeconds: worstCaseLatency(mutatingTimeouts, validatingTimeouts),
  };
  // A symbol key keeps the context out of JSON and object spreads' enumerable output.
  (prediction as WithContext)[CONTEXT] = ctx;
  return prediction;
}

// Explanations are built on demand from the request and snapshot a prediction came from.
const CONTEXT: unique symbol = Symbol("portcullis.predictionContext");
type WithContext = Prediction & { [CONTEXT]?: MatchContext };
const hookMaps = new WeakMap<CompiledSnapshot, Map<string, Hook>>();

function hookByKey(s: CompiledSnapshot, key: string): Hook | undefined {
  let m = hookMaps.get(s);
  if (!m) {
    m = new Map<string, Hook>();
    for (const list of [s.mutating, s.validating, s.mutatingPolicies, s.validatingPolicies]) {
      for (const h of list) m.set(h.key, h);
    }
    hookMaps.set(s, m);
  }
  return m.get(key);
}

/** The human sentence and per-rule detail for one skip of a prediction. */
export function explainSkip(
  prediction: Prediction,
  skip: PredictedSkip,
): { message: string; ruleMismatches: RuleMismatch[] } {
  const ctx = (prediction as WithContext)[CONTEXT];
  if (!ctx) return { message: skip.reason.code, ruleMismatches: [] };
  const code = skip.reason.code === "binding" ? skip.reason.inner.code : skip.reason.code;
  const hook = code === "rules" ? hookByKey(ctx.snapshot, skip.key) : undefined;
  const ruleMismatches = hook ? explainHookRules(hook, ctx) : [];
  return { message: describeSkipReason(skip.reason, ctx.request, ruleMismatches), ruleMismatches };
}

/** A JSON-ready prediction with every skip explained (for the API, the CLI and the UI). */
export function predictionToJSON(prediction: Prediction): object {
  return {
    ...prediction,
    skips: prediction.skips.map((skip) => ({
      stage: skip.stage,
      hook: skip.hook,
      key: skip.key,
      reason: serializeSkipReason(skip.reason),
      ...explainSkip(prediction, skip),
    })),
  };
}

function runInitializers(acc: Acc, r: AdmissionRequest, s: CompiledSnapshot): void {
  let seq = 0;
  for (const init of s.initializers) {
    const applies =
      r.operation === "CREATE" &&
      r.subresource === "" &&
      init.rules.some((rule) => ruleMatches(rule, acc.ctx.attrs));
    if (!applies) {
      acc.skips.push(skipEntry("initializer", init, RULES_REASON));
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
    });
  }
}

/** Convenience: compile and predict in one call (compile once yourself when predicting often). */
export function predict(
  request: AdmissionRequest,
  snapshot: AdmissionSnapshot | CompiledSnapshot,
): Prediction {
  const compiled = "mutatingIndex" in snapshot ? snapshot : compileSnapshot(snapshot);
  return predictCompiled(request, compiled);
}
