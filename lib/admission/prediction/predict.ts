/**
 * predict(request, snapshot): which hooks the apiserver calls for one request, in which order
 * and round, which it skips and why, and which cannot be decided offline.
 *
 * `admissionStages` below follows the apiserver's own order (reference §0, §3):
 *   before any hook   an operation the resource does not serve never reaches admission; then
 *                     NamespaceLifecycle may refuse it; some requests no hook ever sees
 *                     (matching/exclusions.ts, served-operations.ts)
 *   initializers      (1.7–1.13) the pending list a CREATE gets
 *   mutating, round 0 MutatingAdmissionPolicy, then MutatingAdmissionWebhook one by one
 *   mutating, round 1 the IfNeeded hooks a later change may call again (order.ts)
 *   validating        PodSecurity, then ValidatingAdmissionPolicy, then
 *                     ValidatingAdmissionWebhook in parallel
 * Within a stage each hook is matched as its plugin does (matching/match.ts: `matchWebhook` is
 * ShouldCallHook — namespaceSelector, objectSelector, rules, matchConditions — and the dry-run
 * check; `matchPolicyBinding` is the policy dispatcher's). What the stages find is kept in a
 * PredictionRecord (recorder.ts) and becomes the Prediction (result.ts).
 *
 * Speed: the snapshot is compiled once (matching/compile.ts), and a webhook stage looks only at
 * the webhooks whose rules can name the request (webhook-candidates.ts); a hook whose rules match
 * and whose selectors alone decide is called without building a match (`callDecidedBySelectors`).
 * Per-request memos live on the MatchContext (one per request): nothing is kept between requests
 * anywhere else.
 *
 * Output is shaped for comparison with a recording oracle: `calls` holds certain round-0 calls
 * in call order and "possible" round-1 reinvocations; compare `calls.filter(c => c.round === 0)`
 * keys with what the webhooks recorded. `predict` returns the prediction with its Explainer side
 * by side (the sentences cost nothing until asked); `predictCompiled` is the fast path that
 * returns the prediction alone. One report (lib/admission/report/predict-report) serialises both
 * for the command line and the predict page.
 */
import type { AdmissionRequest } from "@/lib/admission/model/request";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import { ruleMatches, type RuleMismatch } from "@/lib/admission/model/rule-matcher";
import { compileSnapshot } from "@/lib/admission/matching/compile";
import type {
  CompiledPolicyBinding,
  CompiledSnapshot,
  CompiledWebhook,
  HookFailure,
  HookMatch,
  SkipReason,
} from "@/lib/admission/matching/compiled";
import { describeHook } from "@/lib/admission/model/hook-identity";
import {
  RULES_REASON,
  callDecidedBySelectors,
  explainRules,
  matchPolicyBinding,
  matchWebhook,
} from "@/lib/admission/matching/match";
import { createMatchContext, type MatchContext } from "@/lib/admission/matching/match-context";
import {
  mutatingPolicyExclusion,
  namespaceLifecycleExclusion,
  namespaceLifecycleRejection,
  policyExclusion,
  staticMutatingPolicyExclusion,
  staticPolicyExclusion,
  staticWebhookExclusion,
  webhookExclusion,
  type Exclusion,
  type InTreeRejection,
  type NamespaceState,
} from "@/lib/admission/matching/exclusions";
import { describeSkipReason } from "@/lib/admission/matching/explain";
import { podSecurityVerdict } from "@/lib/admission/pod-security/admission";
import { unservedOperation } from "@/lib/admission/prediction/served-operations";
import {
  planReinvocation,
  worstCaseLatency,
  type MutatingCall,
  type Stage,
} from "@/lib/admission/prediction/order";
import {
  excluded,
  isWebhook,
  newRecord,
  notReached,
  openWebhookSkips,
  pushSkip,
  recordMatch,
  recordWebhookCall,
  skipAll,
  skipEntry,
  toPrediction,
  type Hook,
  type PredictionRecord,
  type WebhookStageSkips,
} from "@/lib/admission/prediction/recorder";
import {
  mutatingWebhooks,
  validatingWebhooks,
  webhooksToExamine,
  type WebhookStage,
} from "@/lib/admission/prediction/webhook-candidates";
import type {
  Explained,
  Explainer,
  PodSecurityPrediction,
  PredictedCall,
  Prediction,
} from "@/lib/admission/prediction/result";

export type {
  Explained,
  PodSecurityPrediction,
  PredictedCall,
  PredictedFailure,
  Prediction,
} from "@/lib/admission/prediction/result";

/**
 * Predicts one request (compiling the snapshot unless it is compiled; compile once yourself when
 * predicting often) and returns the prediction with its explainer.
 */
export function predict(
  request: AdmissionRequest,
  snapshot: AdmissionSnapshot | CompiledSnapshot,
): Explained {
  const compiled = "mutatingIndex" in snapshot ? snapshot : compileSnapshot(snapshot);
  const { prediction, ctx } = admissionStages(request, compiled);
  return { prediction, explainer: explainerFor(ctx) };
}

/** Predicts against a compiled snapshot (compile once with `compileSnapshot`): the fast path. */
export function predictCompiled(request: AdmissionRequest, snapshot: CompiledSnapshot): Prediction {
  return admissionStages(request, snapshot).prediction;
}

/** The apiserver's admission of one request, stage by stage in its own order. */
function admissionStages(
  request: AdmissionRequest,
  snapshot: CompiledSnapshot,
): { prediction: Prediction; ctx: MatchContext } {
  const ctx = createMatchContext(request, snapshot);
  const record = newRecord(ctx);

  const gate = beforeAnyHook(request, snapshot, ctx);

  initializerStage(record, request, snapshot, gate.noHook);

  policyStage(
    record,
    "mutating-policy",
    snapshot.mutatingPolicies,
    gate.mutatingPolicies,
    gate.staticMutatingPolicies,
  );
  webhookStage(record, mutatingWebhooks(snapshot), gate.webhooks, gate.staticWebhooks);
  reinvocationRound(record);

  const podSecurity = gate.noHook || record.failure ? undefined : podSecurityStage(record, request);
  const refused = podSecurity?.rejects ? podSecurityRefusal(podSecurity) : undefined;
  policyStage(
    record,
    "validating-policy",
    snapshot.validatingPolicies,
    refused ?? gate.policies,
    refused ?? gate.staticPolicies,
  );
  webhookStage(
    record,
    validatingWebhooks(snapshot),
    refused ?? gate.webhooks,
    refused ?? gate.staticWebhooks,
  );

  const prediction = toPrediction(record, {
    rejectedBeforeHooks: gate.rejected,
    exclusions: { webhooks: gate.webhooks, policies: gate.policies },
    worstCaseLatencySeconds: worstCaseLatencySeconds(record),
    podSecurity,
  });
  return { prediction, ctx };
}

/** What happens before any hook: which requests reach none, or only some kinds. */
interface Gate {
  /** An in-tree refusal before any hook: an unserved operation, or NamespaceLifecycle. */
  readonly rejected: InTreeRejection | undefined;
  /** Why no hook of any kind is consulted, when none is. */
  readonly noHook: Exclusion | undefined;
  readonly webhooks: Exclusion | undefined;
  readonly policies: Exclusion | undefined;
  readonly mutatingPolicies: Exclusion | undefined;
  /**
   * The same for static hooks and policies (loaded from manifest directories): they see the
   * admission configuration writes API-based ones never see, so they are excluded less often.
   */
  readonly staticWebhooks: Exclusion | undefined;
  readonly staticPolicies: Exclusion | undefined;
  readonly staticMutatingPolicies: Exclusion | undefined;
}

/**
 * A request whose operation its resource does not serve never reaches admission; then
 * NamespaceLifecycle runs before the policy and webhook plugins: its rejection ends admission.
 * Some requests are never handed to webhooks or to policies (matching/exclusions.ts).
 */
function beforeAnyHook(
  request: AdmissionRequest,
  snapshot: CompiledSnapshot,
  ctx: MatchContext,
): Gate {
  const unserved = unservedOperation(request, snapshot.equivalence.resourceInfo(request));
  const nsState = namespaceState(request, snapshot, ctx);
  const rejected = unserved ? unserved.rejection : namespaceLifecycleRejection(request, nsState);
  const noHook =
    unserved?.exclusion ?? (rejected && namespaceLifecycleExclusion(request, rejected, nsState));
  return {
    rejected,
    noHook,
    webhooks: noHook ?? webhookExclusion(request, snapshot.excludeVirtualResources),
    policies: noHook ?? policyExclusion(request),
    mutatingPolicies: noHook ?? mutatingPolicyExclusion(request),
    staticWebhooks: noHook ?? staticWebhookExclusion(request, snapshot.excludeVirtualResources),
    staticPolicies: noHook ?? staticPolicyExclusion(request),
    staticMutatingPolicies: noHook ?? staticMutatingPolicyExclusion(request),
  };
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

/** Initializers (1.7–1.13): a CREATE of a resource their rules name gets them pending, in order. */
function initializerStage(
  acc: PredictionRecord,
  r: AdmissionRequest,
  s: CompiledSnapshot,
  excl: Exclusion | undefined,
): void {
  if (excl) {
    const reason = excluded(excl);
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
 * One admission policy plugin: every (policy, binding) pair, matched as its dispatcher does.
 * All pairs are evaluated before the plugin reports a failure, so a failure does not stop it.
 * Static pairs (first in the list) answer to `staticExcl`, API ones to `excl`.
 */
function policyStage(
  acc: PredictionRecord,
  stage: Stage,
  hooks: readonly CompiledPolicyBinding[],
  excl: Exclusion | undefined,
  staticExcl: Exclusion | undefined,
): void {
  if (excl && staticExcl) return skipAll(acc, stage, hooks, excluded(excl));
  let seq = 0;
  const failedBefore = acc.failure;
  for (const h of hooks) {
    const own = h.id.origin === undefined ? excl : staticExcl;
    if (own) {
      pushSkip(acc, skipEntry(stage, h, excluded(own)));
      continue;
    }
    if (failedBefore) {
      pushSkip(acc, skipEntry(stage, h, notReached(acc)));
      continue;
    }
    const m = matchPolicyBinding(h, acc.ctx);
    const skip = recordMatch(acc, stage, h, m, seq);
    if (skip) pushSkip(acc, skipEntry(stage, h, skip));
    else if (m.kind === "call") seq++;
  }
}

/**
 * One webhook plugin: each webhook in order through ShouldCallHook (`matchWebhook`). Only the
 * webhooks whose rules can name the request are looked at; the others are rules skips.
 * Mutating webhooks are matched and called one by one (mutating/dispatcher.go), so a failure ends
 * the stage after the calls before it. The validating dispatcher (validating/dispatcher.go)
 * matches every webhook before calling any, in parallel: a match that fails (ShouldCallHook's
 * error) fails the request there, and no validating webhook is called at all; a failure at the
 * call itself (the dry-run checks) leaves the other calls alone.
 * When only the API-based webhooks are excluded (`excl` without `staticExcl`: an admission
 * configuration write), the static ones, first in the list, are still asked.
 */
function webhookStage(
  acc: PredictionRecord,
  wh: WebhookStage,
  excl: Exclusion | undefined,
  staticExcl: Exclusion | undefined,
): void {
  const { stage, hooks, table, serial } = wh;
  const skips = openWebhookSkips(acc, stage, hooks);
  let end = hooks.length;
  if (excl) {
    end = staticExcl ? 0 : wh.staticCount;
    skips.stopAt = end;
    skips.reason = excluded(excl);
    if (end === 0) return;
  }
  if (acc.failure) {
    skips.stopAt = 0;
    skips.reason = notReached(acc);
    return;
  }
  const ctx = acc.ctx;
  const { candidates, own } = webhooksToExamine(wh, ctx);
  let seq = 0;
  let c = 0;
  for (let k = 0; k < candidates.length; k++) {
    const i = candidates[k] as number;
    if (i >= end) break;
    const h = hooks[i] as CompiledWebhook;
    let m: HookMatch;
    if (c < own.hooks.length && own.hooks[c] === i) {
      // Its rules match the request's own GVR.
      const ruleIndex = own.rules[c++] as number;
      const call = callDecidedBySelectors(h, table, i, ctx, ruleIndex);
      if (call) {
        skips.visited.push(i);
        skips.outcome.push(undefined);
        recordWebhookCall(acc, stage, h, call.via, seq++);
        continue;
      }
      m = matchWebhook(h, ctx, ruleIndex);
    } else if (h.match.matchPolicy === "Equivalent") m = matchWebhook(h, ctx);
    else continue;
    if (!serial && m.kind === "fail" && m.phase === undefined) {
      noValidatingWebhookCalled(acc, skips, h, m.failure);
      skips.visited.push(i);
      skips.outcome.push(undefined);
      skips.stopAt = i + 1;
      skips.reason = notReached(acc);
      return;
    }
    skips.visited.push(i);
    skips.outcome.push(recordMatch(acc, stage, h, m, seq));
    if (m.kind === "call") seq++;
    if (serial && acc.failure) {
      skips.stopAt = i + 1;
      skips.reason = notReached(acc);
      return;
    }
  }
}

/**
 * A validating webhook's match failed: the request fails with its error (ahead of a dry-run
 * refusal of an earlier hook, which would only have come at the call), and the webhooks matched
 * before it, called or undecided, are not called.
 */
function noValidatingWebhookCalled(
  acc: PredictionRecord,
  skips: WebhookStageSkips,
  h: CompiledWebhook,
  f: HookFailure,
): void {
  const stage = skips.stage;
  acc.failure = { stage, hook: h.id, key: h.key, status: f.status, message: f.message };
  const reason: SkipReason = { code: "match-failed", failedAt: describeHook(h.id) };
  for (let k = 0; k < skips.outcome.length; k++)
    if (skips.outcome[k] === undefined) skips.outcome[k] = reason;
  for (let k = acc.calls.length - 1; k >= 0; k--)
    if ((acc.calls[k] as PredictedCall).stage === stage) acc.calls.splice(k, 1);
  for (let k = acc.indeterminate.length - 1; k >= 0; k--)
    if ((acc.indeterminate[k] as { stage: Stage }).stage === stage) acc.indeterminate.splice(k, 1);
}

/**
 * Round 1 (`reinvocation.go`): when some round-0 call changed the object, the IfNeeded hooks
 * that ran in round 0 may run again, in the same order; "possible", since whether hooks change
 * the object is unknowable offline.
 */
function reinvocationRound(acc: PredictionRecord): void {
  if (acc.failure) return;
  // Mutating calls carry what the planner reads (their reinvocationPolicy is always set).
  const round0 = acc.calls.filter(isMutatingCall);
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
  }
}

function isMutatingCall(c: PredictedCall): c is PredictedCall & MutatingCall {
  return (
    (c.stage === "mutating-policy" || c.stage === "mutating-webhook") &&
    c.reinvocationPolicy !== undefined
  );
}

/**
 * PodSecurity runs first in the validating phase, on the object as the mutating hooks left it,
 * judging from its namespace's labels (the stored ones, or those the caller gave). A refusal is
 * certain only when no mutating hook may be called before it: any of them could change the pod.
 */
function podSecurityStage(
  acc: PredictionRecord,
  request: AdmissionRequest,
): PodSecurityPrediction | undefined {
  const verdict = podSecurityVerdict(
    request,
    acc.ctx.nsLabels ?? undefined,
    acc.ctx.snapshot.podSecurity,
    // `latest` is the apiserver's own minor's set of checks.
    Number(acc.ctx.snapshot.kubernetes.minor.slice(2)),
  );
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

/** Why the validating policies and webhooks are not called when PodSecurity refuses first. */
function podSecurityRefusal(podSecurity: PodSecurityPrediction): Exclusion {
  return {
    code: "pod-security",
    message: `the PodSecurity admission plugin refuses the request first (${podSecurity.rejection?.status ?? 403}: see PodSecurity), before every validating policy and webhook`,
  };
}

/**
 * Serial mutating timeouts (round 1 included when possible) plus the largest validating one; a
 * hook left undecided may still be called, so it counts too.
 */
function worstCaseLatencySeconds(acc: PredictionRecord): number {
  const mutatingTimeouts: number[] = [];
  const validatingTimeouts: number[] = [];
  for (const c of acc.calls) {
    if (isMutatingCall(c)) mutatingTimeouts.push(c.timeoutSeconds);
    else if (c.stage === "validating-webhook") validatingTimeouts.push(c.timeoutSeconds);
  }
  for (const x of acc.indeterminate) {
    if (x.stage === "mutating-webhook") mutatingTimeouts.push(x.timeoutSeconds);
    else if (x.stage === "validating-webhook") validatingTimeouts.push(x.timeoutSeconds);
  }
  return worstCaseLatency(mutatingTimeouts, validatingTimeouts);
}

/** The explainer of a prediction made with `ctx`: builds its sentences when asked. */
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
