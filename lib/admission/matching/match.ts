/**
 * Does a hook apply to a request, and if not, why? Webhooks follow
 * `generic/webhook.go` `ShouldCallHook`; policies follow `policy/matching/matching.go` `Matches`
 * and `policy/generic/policy_dispatcher.go` `Dispatch`.
 *
 * Reasons are reported rules-first: a hook whose rules do not match is reported as such even
 * when a selector also fails. The outcome is the apiserver's either way, because a selector
 * mismatch skips the hook and a selector error is discarded when no rule matches.
 */
import { lookupParams, type ParamLookup } from "@/lib/admission/model/params";
import {
  NAMESPACE_NAME_LABEL,
  couldBeGeneratedName,
  describeResource,
} from "@/lib/admission/model/request";
import {
  explainSelectorMismatch,
  requirementText,
  selectorMatches,
  selectorMatchesUnknownValue,
  type CompiledSelector,
  type Labels,
  type RequirementMismatch,
} from "@/lib/admission/model/selectors";
import {
  explainRuleMismatch,
  resourceNameMatches,
  ruleMatches,
  type CompiledRule,
  type RuleMismatch,
} from "@/lib/admission/model/rule-matcher";
import {
  celRequest,
  evaluateMatchConditions,
  type CompiledCondition,
  type ConditionVerdict,
} from "@/lib/admission/matching/condition-evaluator";
import {
  RULES_REASON,
  type CompiledMatchResources,
  type CompiledPolicyBinding,
  type CompiledWebhook,
  type HookFailure,
  type HookMatch,
  type MatchedVia,
  type OwnCall,
  type SkipMatch,
  type SkipReason,
} from "@/lib/admission/matching/compiled";
import { DRY_RUN_SAFE, SIMPLE, type WebhookTable } from "@/lib/admission/matching/hook-index";
import type { MatchContext } from "@/lib/admission/matching/match-context";
import type { FailurePolicy } from "@/lib/k8s/types";

export { RULES_REASON };
export type { HookMatch, SkipReason };

type RulesResult = { readonly kind: "match"; readonly via: MatchedVia } | { readonly kind: "none" };

const RULES_SKIP: HookMatch = Object.freeze({ kind: "skip", reason: RULES_REASON });
const NO_RULE: RulesResult = Object.freeze({ kind: "none" });

/** Rules against the request's GVR, then (Equivalent) each rule against each equivalent GVR. */
function matchRules(
  rules: readonly CompiledRule[],
  matchPolicy: string,
  ctx: MatchContext,
  withNames: boolean,
): RulesResult {
  const a = ctx.attrs;
  const r = ctx.request;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i] as CompiledRule;
    if (ruleMatches(rule, a) && (!withNames || resourceNameMatches(rule, a.name))) {
      return {
        kind: "match",
        via: {
          resource: { group: r.group, version: r.version, resource: r.resource },
          subresource: r.subresource,
          kind: r.kind,
          converted: false,
          ruleIndex: rule.index,
        },
      };
    }
  }
  if (matchPolicy !== "Equivalent") return NO_RULE;
  const equivalents = ctx.equivalents;
  if (equivalents.length <= 1) return NO_RULE;
  const own = { group: r.group, version: r.version, resource: r.resource };
  for (const rule of rules) {
    for (const eq of equivalents) {
      const g = eq.gvr;
      if (g.group === own.group && g.version === own.version && g.resource === own.resource)
        continue;
      const ea = { ...a, group: g.group, version: g.version, resource: g.resource };
      if (!ruleMatches(rule, ea)) continue;
      if (withNames && !resourceNameMatches(rule, a.name)) continue;
      return {
        kind: "match",
        via: {
          resource: g,
          subresource: r.subresource,
          kind: eq.kind,
          converted: true,
          ruleIndex: rule.index,
        },
      };
    }
  }
  return NO_RULE;
}

/**
 * A call through the request's own GVR with the rule that matched it (e.g. from the rule-match
 * cache); one shared object per rule index within a request.
 */
function ownCall(ctx: MatchContext, ruleIndex: number): OwnCall {
  const calls = ctx.ownCallMemo();
  let call = ruleIndex >= 0 ? calls[ruleIndex] : undefined;
  if (!call) {
    const r = ctx.request;
    call = {
      kind: "call",
      via: {
        resource: { group: r.group, version: r.version, resource: r.resource },
        subresource: r.subresource,
        kind: r.kind,
        converted: false,
        ruleIndex,
      },
    };
    if (ruleIndex >= 0) calls[ruleIndex] = call;
  }
  return call;
}

/** A selector whose outcome depends on a label value not known before the request. */
interface Undecided {
  readonly kind: "unknown";
  readonly dependsOn: "namespaceSelector" | "objectSelector";
  /** The requirement it depends on, as text. */
  readonly condition: string;
}

type SelectorResult =
  | { readonly kind: "match" }
  | { readonly kind: "skip"; readonly reason: SkipReason }
  | { readonly kind: "error"; readonly status: 404 | 500; readonly message: string }
  | Undecided;

const SELECTOR_MATCH: SelectorResult = Object.freeze({ kind: "match" });

type Phase = "mutating" | "validating";

const GENERATED_NAME_LABEL_REASON = `the apiserver labels the Namespace ${NAMESPACE_NAME_LABEL} with the name it generates (generateName) after mutating and before validating admission`;

/** An undecided selector leaves the hook undecided, unless the hook is skipped whatever it says. */
function undecidedUnlessSkipped(
  u: Undecided | undefined,
  via: MatchedVia,
  outcome: HookMatch,
): HookMatch {
  if (u === undefined || outcome.kind === "skip") return outcome;
  return {
    kind: "indeterminate",
    via,
    dependsOn: u.dependsOn,
    condition: u.condition,
    reason: GENERATED_NAME_LABEL_REASON,
  };
}

function undecidedOf(a: SelectorResult, b: SelectorResult): Undecided | undefined {
  return a.kind === "unknown" ? a : b.kind === "unknown" ? b : undefined;
}

/**
 * A selector in the validating phase of a Namespace CREATE named by generateName: the Namespace
 * then carries `kubernetes.io/metadata.name` with the generated name (the strategy's
 * Canonicalize), known only as `base` and five generated characters. Skips show that part as
 * `?????`.
 */
function generatedNameSelector(
  sel: CompiledSelector,
  labels: Labels | undefined,
  base: string,
  ctx: MatchContext,
  dependsOn: Undecided["dependsOn"],
): SelectorResult {
  const v = selectorMatchesUnknownValue(sel, labels, NAMESPACE_NAME_LABEL, (x) =>
    couldBeGeneratedName(x, base),
  );
  if (v === true) return SELECTOR_MATCH;
  if (v !== false) return { kind: "unknown", dependsOn, condition: requirementText(v) };
  const name = `${base}?????`;
  const named: Labels = { ...labels, [NAMESPACE_NAME_LABEL]: name };
  if (dependsOn === "namespaceSelector")
    return {
      kind: "skip",
      reason: {
        code: "namespace-selector",
        namespace: ctx.attrs.namespace || name,
        selector: sel.text,
        compiled: sel,
        labels: named,
      },
    };
  return {
    kind: "skip",
    reason: {
      code: "object-selector",
      selector: sel.text,
      compiled: sel,
      object: named,
      oldObject: "absent",
    },
  };
}

/** A selector outcome memoised for this request by slot (`i`: 2·slot + side); 0 unknown. */
function memoGet(ctx: MatchContext, slot: number, side: 0 | 1): number {
  return slot < 0 ? 0 : (ctx.selectorMemo()[2 * slot + side] ?? 0);
}

function memoSet(ctx: MatchContext, slot: number, side: 0 | 1, ok: boolean): boolean {
  if (slot >= 0) ctx.selectorMemo()[2 * slot + side] = ok ? 1 : 2;
  return ok;
}

function objectSelectorMatches(sel: CompiledSelector, ctx: MatchContext): boolean {
  return (
    (ctx.objectHasMeta && selectorMatches(sel, ctx.objectLabels)) ||
    (ctx.oldObjectHasMeta && selectorMatches(sel, ctx.oldObjectLabels))
  );
}

/** `MatchNamespaceSelector`. */
function matchNamespace(
  sel: CompiledSelector,
  slot: number,
  ctx: MatchContext,
  phase: Phase,
): SelectorResult {
  if (ctx.nsSource.kind === "cluster-scoped" || sel.empty) return SELECTOR_MATCH;
  if (sel.error !== undefined)
    return { kind: "error", status: 500, message: `Internal error occurred: ${sel.error}` };
  const labels = ctx.nsLabels;
  const ns = ctx.attrs.namespace;
  if (labels === null)
    return { kind: "error", status: 404, message: `namespaces "${ns}" not found` };
  const base = ctx.generatedNamespace;
  if (phase === "validating" && base !== undefined)
    return generatedNameSelector(sel, labels, base, ctx, "namespaceSelector");
  const known = memoGet(ctx, slot, 0);
  if (known === 0 ? memoSet(ctx, slot, 0, selectorMatches(sel, labels)) : known === 1)
    return SELECTOR_MATCH;
  const memo = slot >= 0 ? ctx.selectorSkipMemo() : undefined;
  const hit = memo?.[2 * slot];
  if (hit) return hit;
  const skip: SkipMatch = {
    kind: "skip",
    reason: {
      code: "namespace-selector",
      namespace: ns,
      selector: sel.text,
      compiled: sel,
      labels,
    },
  };
  if (memo) memo[2 * slot] = skip;
  return skip;
}

/** `MatchObjectSelector`: the new or the old object may match; no object or no metadata never does. */
function matchObject(
  sel: CompiledSelector,
  slot: number,
  ctx: MatchContext,
  phase: Phase,
): SelectorResult {
  if (sel.empty) return SELECTOR_MATCH;
  if (sel.error !== undefined) {
    return { kind: "error", status: 500, message: `Internal error occurred: ${sel.error}` };
  }
  // The created Namespace is the object (there is no old one).
  const base = ctx.generatedNamespace;
  if (phase === "validating" && base !== undefined)
    return generatedNameSelector(sel, ctx.objectLabels, base, ctx, "objectSelector");
  const known = memoGet(ctx, slot, 1);
  if (known === 0 ? memoSet(ctx, slot, 1, objectSelectorMatches(sel, ctx)) : known === 1)
    return SELECTOR_MATCH;
  const memo = slot >= 0 ? ctx.selectorSkipMemo() : undefined;
  const hit = memo?.[2 * slot + 1];
  if (hit) return hit;
  const r = ctx.request;
  const skip: SkipMatch = {
    kind: "skip",
    reason: {
      code: "object-selector",
      selector: sel.text,
      compiled: sel,
      object: side(r.object, ctx.objectHasMeta, ctx.objectLabels),
      oldObject: side(r.oldObject, ctx.oldObjectHasMeta, ctx.oldObjectLabels),
    },
  };
  if (memo) memo[2 * slot + 1] = skip;
  return skip;
}

function side(
  obj: unknown,
  hasMeta: boolean,
  labels: Labels | undefined,
): Labels | "absent" | "no-metadata" {
  if (obj === null || obj === undefined) return "absent";
  return hasMeta ? (labels ?? {}) : "no-metadata";
}

/** The failing requirements behind a selector skip (namespace, object and old object). */
export function selectorSkipDetail(reason: SkipReason): {
  namespace?: RequirementMismatch[];
  object?: RequirementMismatch[] | "absent" | "no-metadata";
  oldObject?: RequirementMismatch[] | "absent" | "no-metadata";
} {
  if (reason.code === "namespace-selector") {
    return { namespace: explainSelectorMismatch(reason.compiled, reason.labels) };
  }
  if (reason.code === "object-selector") {
    const d = (v: Labels | "absent" | "no-metadata") =>
      typeof v === "string" ? v : explainSelectorMismatch(reason.compiled, v);
    return { object: d(reason.object), oldObject: d(reason.oldObject) };
  }
  if (reason.code === "binding") return selectorSkipDetail(reason.inner);
  return {};
}

function conditionsVerdict(
  conditions: readonly CompiledCondition[],
  slot: number,
  via: MatchedVia,
  ctx: MatchContext,
): ConditionVerdict {
  if (via.converted) {
    const vars = () => ({
      ...ctx.celVariables(),
      request: celRequest(ctx.request, via.kind, via.resource),
    });
    return evaluateMatchConditions(conditions, vars, via.kind);
  }
  // Unconverted, the verdict depends only on the conditions and the request.
  const memo = slot >= 0 ? ctx.conditionMemo() : undefined;
  const hit = memo?.[slot];
  if (hit) return hit;
  const verdict = evaluateMatchConditions(conditions, ctx.celVariables.bind(ctx), undefined);
  if (memo) memo[slot] = verdict;
  return verdict;
}

/** A CREATE whose object asks the apiserver to generate its name. */
function namedLater(r: MatchContext["request"]): boolean {
  if (r.operation !== "CREATE" || (r.name ?? "") !== "") return false;
  const meta = r.object?.["metadata"];
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return false;
  const g = (meta as Record<string, unknown>)["generateName"];
  return typeof g === "string" && g !== "";
}

function conditionsOutcome(
  conditions: readonly CompiledCondition[],
  slot: number,
  call: OwnCall,
  ctx: MatchContext,
  failurePolicy: FailurePolicy,
  onError: (errors: ReadonlyArray<{ condition: string; message: string }>) => HookMatch,
  phase: "mutating" | "validating",
): HookMatch {
  if (conditions.length === 0) return call;
  const via = call.via;
  // A generateName create gets its name after mutating admission and before validating: a
  // validating condition that reads a name would read one not known before the request.
  // A generated Namespace is also labelled with that name then (kubernetes.io/metadata.name).
  if (phase === "validating" && namedLater(ctx.request)) {
    const r = ctx.request;
    const labelled = r.kind.group === "" && r.kind.kind === "Namespace";
    const reads = conditions.find(
      (c) => /\bname\b/.test(c.expression) || (labelled && /\blabels\b/.test(c.expression)),
    );
    if (reads)
      return {
        kind: "indeterminate",
        via,
        dependsOn: "matchCondition",
        condition: reads.name,
        reason: labelled
          ? "reads the name (or the label naming it) the apiserver generates (generateName) before validating admission"
          : "reads a name the apiserver generates (generateName) before validating admission",
      };
  }
  const verdict = conditionsVerdict(conditions, slot, via, ctx);
  switch (verdict.kind) {
    case "match":
      return call;
    case "no-match":
      return {
        kind: "skip",
        reason: { code: "match-condition-false", condition: verdict.condition },
      };
    case "indeterminate":
      return {
        kind: "indeterminate",
        via,
        dependsOn: "matchCondition",
        condition: verdict.condition,
        reason: verdict.reason,
      };
    case "error":
      if (failurePolicy === "Ignore") {
        return {
          kind: "skip",
          reason: { code: "match-condition-error-ignored", errors: verdict.errors },
        };
      }
      return onError(verdict.errors);
  }
}

/**
 * The call, when a hook whose rules matched the request's own GVR is called on its selectors
 * alone (no matchConditions, no dry-run question): the common case of `matchWebhook`, decided
 * from the hook table and per-request memos without building intermediate results.
 * Returns the call when `matchWebhook(hook, ctx, ruleIndex)` would return it; undefined when
 * `matchWebhook` must decide (selector skips and errors, matchConditions, dry-run checks).
 */
export function callDecidedBySelectors(
  hook: CompiledWebhook,
  table: WebhookTable,
  i: number,
  ctx: MatchContext,
  ruleIndex: number,
): OwnCall | undefined {
  const f = table.flags[i] ?? 0;
  if ((f & SIMPLE) === 0 || (ctx.request.dryRun && (f & DRY_RUN_SAFE) === 0)) return undefined;
  // Selectors see a label not known beforehand there (see matchNamespace).
  if (hook.type === "validating" && ctx.generatedNamespace !== undefined) return undefined;
  const nsSlot = table.namespaceSlot[i] ?? -1;
  if (nsSlot >= 0 && ctx.nsSource.kind !== "cluster-scoped") {
    const labels = ctx.nsLabels;
    if (labels === null) return undefined;
    const known = memoGet(ctx, nsSlot, 0);
    const ok =
      known === 0
        ? memoSet(ctx, nsSlot, 0, selectorMatches(hook.match.namespaceSelector, labels))
        : known === 1;
    if (!ok) return undefined;
  }
  const objSlot = table.objectSlot[i] ?? -1;
  if (objSlot >= 0) {
    const known = memoGet(ctx, objSlot, 1);
    const ok =
      known === 0
        ? memoSet(ctx, objSlot, 1, objectSelectorMatches(hook.match.objectSelector, ctx))
        : known === 1;
    if (!ok) return undefined;
  }
  return ownCall(ctx, ruleIndex);
}

/** `ShouldCallHook` for one webhook, plus the dry-run check the dispatchers make before calling. */
export function matchWebhook(
  hook: CompiledWebhook,
  ctx: MatchContext,
  ownRuleIndex?: number,
): HookMatch {
  const m = hook.match;
  let call: OwnCall;
  if (ownRuleIndex === undefined) {
    const rules = matchRules(m.rules, m.matchPolicy, ctx, false);
    if (rules.kind === "none") return RULES_SKIP;
    call =
      rules.via.converted || rules.via.ruleIndex < 0
        ? { kind: "call", via: rules.via }
        : ownCall(ctx, rules.via.ruleIndex);
  } else call = ownCall(ctx, ownRuleIndex);
  const ns = matchNamespace(m.namespaceSelector, m.namespaceSelectorSlot, ctx, hook.type);
  if (ns.kind === "skip") return ns;
  const obj = matchObject(m.objectSelector, m.objectSelectorSlot, ctx, hook.type);
  if (obj.kind === "skip") return obj;
  const undecided = undecidedOf(ns, obj);
  if (undecided === undefined) return selectedWebhook(hook, ctx, call, ns, obj);
  return undecidedUnlessSkipped(undecided, call.via, selectedWebhook(hook, ctx, call, ns, obj));
}

/** The rest of `matchWebhook` once its selectors did not skip it. */
function selectedWebhook(
  hook: CompiledWebhook,
  ctx: MatchContext,
  call: OwnCall,
  ns: SelectorResult,
  obj: SelectorResult,
): HookMatch {
  const via = call.via;
  if (ns.kind === "error")
    return { kind: "fail", via, failure: { status: ns.status, message: ns.message } };
  if (obj.kind === "error")
    return { kind: "fail", via, failure: { status: obj.status, message: obj.message } };
  const r = ctx.request;
  const outcome =
    hook.conditions.length === 0
      ? call
      : conditionsOutcome(
          hook.conditions,
          hook.conditionsSlot,
          call,
          ctx,
          hook.failurePolicy,
          (errors) => ({
            kind: "fail",
            via,
            failure: {
              status: 403,
              message: `${forbiddenPrefix(ctx)}${conditionErrorText(hook.conditions, errors)}`,
            },
          }),
          hook.type,
        );
  if (outcome.kind !== "call" || !r.dryRun) return outcome;
  const se = hook.sideEffects;
  if (se === "None" || se === "NoneOnDryRun") return outcome;
  if (se === undefined) {
    // A nil sideEffects is a call error, so failurePolicy applies.
    if (hook.failurePolicy === "Ignore")
      return {
        kind: "skip",
        reason: { code: "configuration-error-ignored", message: "Webhook SideEffects is nil" },
      };
    return {
      kind: "fail",
      via,
      phase: "call",
      failure: {
        status: 500,
        message: `Internal error occurred: failed calling webhook "${hook.id.name}": Webhook SideEffects is nil`,
      },
    };
  }
  return {
    kind: "fail",
    via,
    phase: "call",
    failure: {
      status: 400,
      message: `admission webhook "${hook.id.name}" does not support dry run`,
    },
  };
}

type ResourcesResult =
  | {
      readonly kind: "match";
      readonly via: MatchedVia;
      /** Set when a selector may or may not match (see `Undecided`). */
      readonly undecided?: Undecided;
    }
  | { readonly kind: "skip"; readonly reason: SkipReason }
  | { readonly kind: "error"; readonly message: string };

/** `matching.Matcher.Matches` for a policy's matchConstraints or a binding's matchResources. */
function matchResources(
  m: CompiledMatchResources,
  ctx: MatchContext,
  phase: Phase,
): ResourcesResult {
  const ns = matchNamespace(m.namespaceSelector, m.namespaceSelectorSlot, ctx, phase);
  if (ns.kind === "skip") return ns;
  const obj = matchObject(m.objectSelector, m.objectSelectorSlot, ctx, phase);
  if (obj.kind === "skip") return obj;
  const excluded = matchRules(m.excludeRules, m.matchPolicy, ctx, true);
  if (excluded.kind === "match")
    return { kind: "skip", reason: { code: "exclude-rule", ruleIndex: excluded.via.ruleIndex } };
  let via: MatchedVia;
  if (m.rules.length === 0) {
    const r = ctx.request;
    via = {
      resource: { group: r.group, version: r.version, resource: r.resource },
      subresource: r.subresource,
      kind: r.kind,
      converted: false,
      ruleIndex: -1,
    };
  } else {
    const res = matchRules(m.rules, m.matchPolicy, ctx, true);
    if (res.kind === "none") return { kind: "skip", reason: { code: "rules" } };
    via = res.via;
  }
  if (ns.kind === "error") return { kind: "error", message: ns.message };
  if (obj.kind === "error") return { kind: "error", message: obj.message };
  const undecided = undecidedOf(ns, obj);
  return undecided === undefined ? { kind: "match", via } : { kind: "match", via, undecided };
}

/**
 * One (policy, binding) pair, as the policy plugins' dispatchers treat it: the validating one
 * (`validating/dispatcher.go`) and the generic one that mutating policies go through
 * (`generic/policy_dispatcher.go`) both collect configuration errors and keep evaluating the
 * other pairs, then reject with the first.
 */
export function matchPolicyBinding(pb: CompiledPolicyBinding, ctx: MatchContext): HookMatch {
  if (pb.policyMissing || !pb.constraints) {
    if (pb.policyMissing)
      return { kind: "skip", reason: { code: "policy-missing", policyName: pb.policyName } };
    return configError(
      pb,
      ctx,
      "failed to configure policy: policy contained no match constraints, a required field",
      undefined,
      "policy",
    );
  }
  const def = matchResources(pb.constraints, ctx, pb.type);
  if (def.kind === "skip") return def;
  if (def.kind === "error")
    return configError(pb, ctx, `failed to configure policy: ${def.message}`, undefined, "policy");
  const outcome = matchedPolicy(pb, ctx, def.via);
  return def.undecided ? undecidedUnlessSkipped(def.undecided, def.via, outcome) : outcome;
}

/** The rest of `matchPolicyBinding` once the policy's matchConstraints matched (through `via`). */
function matchedPolicy(pb: CompiledPolicyBinding, ctx: MatchContext, via: MatchedVia): HookMatch {
  // A policy the apiserver could not configure fails every request it matches, before any of
  // its bindings is looked at (the dispatchers' hook.ConfigurationError).
  if (pb.paramKindError !== undefined)
    return configError(pb, ctx, `failed to configure policy: ${pb.paramKindError}`, via, "policy");
  if (!pb.bindingMatch) return boundPolicy(pb, ctx, via);
  const b = matchResources(pb.bindingMatch, ctx, pb.type);
  if (b.kind === "skip") return { kind: "skip", reason: { code: "binding", inner: b.reason } };
  if (b.kind === "error")
    return configError(pb, ctx, `failed to configure binding: ${b.message}`, via, "binding");
  const outcome = boundPolicy(pb, ctx, via);
  return b.undecided ? undecidedUnlessSkipped(b.undecided, via, outcome) : outcome;
}

/** The rest of `matchPolicyBinding` once the binding's matchResources matched too. */
function boundPolicy(pb: CompiledPolicyBinding, ctx: MatchContext, via: MatchedVia): HookMatch {
  // CollectParams runs before any evaluation (matchConditions included).
  const params = bindingParams(pb, ctx);
  if (params.kind === "error")
    return configError(pb, ctx, `failed to configure binding: ${params.message}`, via, "binding");
  if (params.kind === "found" && params.names.length === 0) {
    if (pb.paramRef?.notFoundAction === "Allow")
      return { kind: "skip", reason: { code: "params-not-found", where: params.where } };
    return configError(
      pb,
      ctx,
      "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
      via,
      "binding",
    );
  }
  return conditionsOutcome(
    pb.conditions,
    pb.conditionsSlot,
    untypedApply(pb, ctx, via) ?? { kind: "call", via },
    ctx,
    pb.failurePolicy,
    (errors) => {
      const text = conditionErrorText(pb.conditions, errors);
      // A mutating policy's failed matchConditions are a configuration error; a validating
      // policy's are its decision, acted on by the binding's validationActions.
      if (pb.type === "mutating") return configError(pb, ctx, text, via, "binding");
      if (!pb.validationActions.includes("Deny"))
        return { kind: "call", via, conditionError: text };
      return {
        kind: "call",
        via,
        conditionError: text,
        failure: policyFailure(pb, ctx, text, "binding"),
      };
    },
    pb.type,
  );
}

/** Kinds the apiserver has no typed schema for: an ApplyConfiguration cannot be applied to them. */
const UNTYPED_KINDS = new Set(["autoscaling/v1/Scale"]);

/**
 * A mutating policy whose ApplyConfiguration meets an object of a kind without a typed schema
 * (the Scale of a scale subresource): its evaluation fails applying the patch (policy/mutating/
 * patch/typeconverter.go), a configuration error under failurePolicy Fail; ignored under Ignore.
 */
function untypedApply(
  pb: CompiledPolicyBinding,
  ctx: MatchContext,
  via: MatchedVia,
): OwnCall | undefined {
  const k = via.kind;
  if (!pb.appliesConfiguration || !UNTYPED_KINDS.has(`${k.group}/${k.version}/${k.kind}`))
    return undefined;
  if (pb.failurePolicy === "Ignore") return { kind: "call", via };
  const gv = k.group === "" ? k.version : `${k.group}/${k.version}`;
  return {
    kind: "call",
    via,
    failure: policyFailure(
      pb,
      ctx,
      `error applying patch: failed to convert patch object to typed object: no corresponding type for ${gv}, Kind=${k.kind}`,
      "binding",
    ),
  };
}

/**
 * The error the apiserver's match-condition evaluation reports: each failed expression as
 * cel-go words it, several aggregated as `[…, …]`.
 */
function conditionErrorText(
  conditions: readonly CompiledCondition[],
  errors: ReadonlyArray<{ condition: string; message: string }>,
): string {
  const texts = errors.map((e) => {
    const expression = conditions.find((c) => c.name === e.condition)?.expression ?? "";
    return `expression '${expression}' resulted in error: ${goErrorMessage(e.message)}`;
  });
  return texts.length === 1 ? (texts[0] ?? "") : `[${texts.join(", ")}]`;
}

/** cel-go's wording of a runtime error the evaluator reports in cel-js's. */
function goErrorMessage(message: string): string {
  return message.replace(/^No such key: /, "no such key: ");
}

/**
 * How admission.NewForbidden starts a rejection's message: `<resource>[.<group>] "<name>" is
 * forbidden: `.
 */
function forbiddenPrefix(ctx: MatchContext): string {
  const r = ctx.request;
  const res = r.group === "" ? r.resource : `${r.resource}.${r.group}`;
  return `${res} "${r.name ?? ""}" is forbidden: `;
}

/** The rejection a policy's error or denial gives, worded as its plugin words it. */
function policyFailure(
  pb: CompiledPolicyBinding,
  ctx: MatchContext,
  message: string,
  level: "policy" | "binding",
): HookFailure {
  if (pb.type === "validating")
    return {
      status: 422,
      message:
        level === "binding"
          ? `${forbiddenPrefix(ctx)}ValidatingAdmissionPolicy '${pb.policyName}' with binding '${pb.bindingName}' denied request: ${message}`
          : `${forbiddenPrefix(ctx)}ValidatingAdmissionPolicy '${pb.policyName}' denied request: ${message}`,
    };
  return {
    status: 403,
    message:
      level === "binding"
        ? `policy '${pb.policyName}' with binding '${pb.bindingName}' denied request: ${message}`
        : `policy ${JSON.stringify(pb.policyName)} denied request: ${message}`,
  };
}

/**
 * The params a binding evaluates with for this request; `unknown` when the policy takes no
 * params from a paramRef or they were not read.
 */
export function bindingParams(pb: CompiledPolicyBinding, ctx: MatchContext): ParamLookup {
  if (!pb.paramRef || pb.paramKind === undefined) return { kind: "unknown" };
  return lookupParams(
    pb.paramRef,
    ctx.snapshot.params?.get(pb.paramKind),
    ctx.request.namespace ?? "",
  );
}

function configError(
  pb: CompiledPolicyBinding,
  ctx: MatchContext,
  message: string,
  via: MatchedVia | undefined,
  level: "policy" | "binding",
): HookMatch {
  if (pb.failurePolicy === "Ignore")
    return { kind: "skip", reason: { code: "configuration-error-ignored", message } };
  return { kind: "fail", via, failure: policyFailure(pb, ctx, message, level) };
}

/** Every rule's first mismatch against the request (and, for Equivalent, against equivalents). */
export function explainRules(
  rules: readonly CompiledRule[],
  matchPolicy: string,
  ctx: MatchContext,
): RuleMismatch[] {
  const out: RuleMismatch[] = [];
  for (const rule of rules) {
    const m = explainRuleMismatch(rule, ctx.attrs);
    if (m) out.push(m);
  }
  if (rules.length === 0) {
    out.push({
      ruleIndex: -1,
      field: "resource",
      expected: [],
      actual: ctx.attrs.resource,
      message: "the hook has no rules",
    });
  }
  if (matchPolicy === "Equivalent") {
    const r = ctx.request;
    const eqs = ctx.snapshot.equivalence.equivalentsFor(
      { group: r.group, version: r.version, resource: r.resource },
      r.subresource,
    );
    if (eqs.length > 1) {
      out.push({
        ruleIndex: -1,
        field: "version",
        expected: eqs.map((e) => describeResource(e.gvr)),
        actual: describeResource({ group: r.group, version: r.version, resource: r.resource }),
        message: `no rule matches the equivalent resources either (${eqs.map((e) => describeResource(e.gvr)).join(", ")})`,
      });
    }
  }
  return out;
}
