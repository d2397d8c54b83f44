/**
 * The shared model of admission matching: the compiled snapshot and what matching one hook can
 * come to. Types only (and one shared constant), so compile, match, match-context and order all
 * depend on this module and none of them on each other in a circle.
 */
import type { AssumedMinor } from "@/lib/admission/model/kubernetes-minor";
import type { FailurePolicy, MatchPolicy, ReinvocationPolicy } from "@/lib/k8s/types";
import type { CompiledSelector, Labels } from "@/lib/admission/model/selectors";
import type { CompiledRule, RuleAttributes } from "@/lib/admission/model/rule-matcher";
import type { CompiledCondition } from "@/lib/admission/matching/condition-evaluator";
import type { EquivalenceIndex } from "@/lib/admission/matching/equivalence";
import type { HookIdentity } from "@/lib/admission/model/hook-identity";
import type { HookIndex, RuleMatches, WebhookTable } from "@/lib/admission/matching/hook-index";
import type { CompiledParamRef, ParamObjects } from "@/lib/admission/model/params";
import type { PodSecurityConfig } from "@/lib/admission/model/admission-configuration";
import type { GroupVersionKind, GroupVersionResource } from "@/lib/admission/model/request";

/** Where a hook runs. */
export type Stage =
  | "initializer"
  | "mutating-policy"
  | "mutating-webhook"
  | "validating-policy"
  | "validating-webhook";

/** Selectors and rules shared by webhooks and policy match resources. */
export interface CompiledMatchResources {
  readonly namespaceSelector: CompiledSelector;
  readonly objectSelector: CompiledSelector;
  /**
   * Equal selectors share a slot (`-1`: none), so a prediction evaluates each distinct
   * selector once per request (see `MatchContext.selectorMemo`).
   */
  readonly namespaceSelectorSlot: number;
  readonly objectSelectorSlot: number;
  readonly rules: readonly CompiledRule[];
  readonly excludeRules: readonly CompiledRule[];
  readonly matchPolicy: MatchPolicy;
}

/** A webhook with its defaults applied (v1 or v1beta1, by the configuration's apiVersion). */
export interface CompiledWebhook {
  readonly id: HookIdentity;
  /** `hookKey(id)`, precomputed. */
  readonly key: string;
  /** The skip entry for "no rule matches", shared by every prediction. */
  readonly rulesSkip: SkipEntry;
  readonly type: "mutating" | "validating";
  readonly apiVersion: "v1" | "v1beta1";
  /** Index in the merged, ordered list of its type. */
  readonly order: number;
  readonly match: CompiledMatchResources;
  readonly failurePolicy: FailurePolicy;
  readonly sideEffects: string | undefined;
  readonly timeoutSeconds: number;
  readonly reinvocationPolicy: ReinvocationPolicy;
  readonly conditions: readonly CompiledCondition[];
  /** Equal condition lists share a slot (`-1`: none); see `MatchContext.conditionMemo`. */
  readonly conditionsSlot: number;
}

/** One (policy, binding) pair; the unit the policy plugins dispatch. */
export interface CompiledPolicyBinding {
  readonly id: HookIdentity;
  readonly key: string;
  readonly type: "mutating" | "validating";
  readonly policyName: string;
  readonly bindingName: string;
  /** Undefined when the binding names a policy that does not exist. */
  readonly constraints: CompiledMatchResources | undefined;
  readonly policyMissing: boolean;
  /** Undefined: the binding has no matchResources and matches whatever the policy matches. */
  readonly bindingMatch: CompiledMatchResources | undefined;
  readonly failurePolicy: FailurePolicy;
  readonly conditions: readonly CompiledCondition[];
  readonly conditionsSlot: number;
  readonly hasParamKind: boolean;
  /** `paramKindKey` of the policy's paramKind, when it has one. */
  readonly paramKind: string | undefined;
  /**
   * Why the apiserver cannot configure the policy, when its paramKind is not served (`failed to
   * find resource referenced by paramKind: …`): a policy-level error for every request it matches.
   */
  readonly paramKindError: string | undefined;
  readonly paramRef: CompiledParamRef | undefined;
  readonly validationActions: readonly string[];
  readonly reinvocationPolicy: ReinvocationPolicy;
  /** A mutating policy with an ApplyConfiguration mutation (applied through a typed schema). */
  readonly appliesConfiguration: boolean;
}

/** An initializer (1.7–1.13): CREATE only, no subresources. */
export interface CompiledInitializer {
  readonly id: HookIdentity;
  readonly key: string;
  readonly order: number;
  readonly rules: readonly CompiledRule[];
}

/** The compiled snapshot. */
export interface CompiledSnapshot {
  readonly mutating: readonly CompiledWebhook[];
  readonly validating: readonly CompiledWebhook[];
  readonly mutatingPolicies: readonly CompiledPolicyBinding[];
  readonly validatingPolicies: readonly CompiledPolicyBinding[];
  readonly initializers: readonly CompiledInitializer[];
  readonly namespaces: ReadonlyMap<string, Labels>;
  /** Whether the snapshot lists the cluster's namespaces (then one not in it does not exist). */
  readonly namespacesKnown: boolean;
  /** Namespaces whose `status.phase` is Terminating (NamespaceLifecycle refuses creates in them). */
  readonly terminatingNamespaces: ReadonlySet<string>;
  /** The PodSecurity plugin's configuration, when given (AdmissionSnapshot.podSecurity). */
  readonly podSecurity: PodSecurityConfig | undefined;
  readonly equivalence: EquivalenceIndex;
  readonly excludeVirtualResources: boolean;
  /** The minor whose behaviour is reproduced (AdmissionSnapshot.kubernetes, else the newest). */
  readonly kubernetes: AssumedMinor;
  readonly mutatingIndex: HookIndex;
  readonly validatingIndex: HookIndex;
  /** Memoised own-GVR rule matches per request signature (`ruleSignature`). */
  readonly mutatingRuleMatches: (attrs: RuleAttributes, signature: string) => RuleMatches;
  readonly validatingRuleMatches: (attrs: RuleAttributes, signature: string) => RuleMatches;
  /**
   * How many of `mutating` / `validating` are static (loaded from a manifest directory): they
   * are the first ones, and the only ones called for admission configuration writes.
   */
  readonly mutatingStatic: number;
  readonly validatingStatic: number;
  /** Per-hook constants of `mutating` / `validating` as flat arrays (by position). */
  readonly mutatingTable: WebhookTable;
  readonly validatingTable: WebhookTable;
  /** Param objects by `paramKindKey`; undefined when params were not read (offline). */
  readonly params: ReadonlyMap<string, ParamObjects> | undefined;
  /** Number of distinct selector slots and condition-list slots. */
  readonly selectorSlots: number;
  readonly conditionSlots: number;
}

/** The resource and kind a hook is called with (an equivalent's when matchPolicy converted it). */
export interface MatchedVia {
  readonly resource: GroupVersionResource;
  readonly subresource: string;
  readonly kind: GroupVersionKind;
  /** True when the request was converted to an equivalent version for this hook. */
  readonly converted: boolean;
  readonly ruleIndex: number;
}

/** Structured reason a hook is not called. */
export type SkipReason =
  | { readonly code: "excluded"; readonly message: string }
  | { readonly code: "rules" }
  | { readonly code: "exclude-rule"; readonly ruleIndex: number }
  | {
      readonly code: "namespace-selector";
      readonly namespace: string;
      /** The selector's canonical text. */
      readonly selector: string;
      /** Detail is computed on demand: see `selectorSkipDetail`. */
      readonly compiled: CompiledSelector;
      readonly labels: Labels | undefined;
    }
  | {
      readonly code: "object-selector";
      readonly selector: string;
      readonly compiled: CompiledSelector;
      readonly object: Labels | "absent" | "no-metadata";
      readonly oldObject: Labels | "absent" | "no-metadata";
    }
  | { readonly code: "match-condition-false"; readonly condition: string }
  | {
      readonly code: "match-condition-error-ignored";
      readonly errors: ReadonlyArray<{ condition: string; message: string }>;
    }
  | { readonly code: "configuration-error-ignored"; readonly message: string }
  | { readonly code: "binding"; readonly inner: SkipReason }
  | { readonly code: "policy-missing"; readonly policyName: string }
  /** paramRef found no param object and parameterNotFoundAction is Allow: not evaluated. */
  | { readonly code: "params-not-found"; readonly where: string }
  | { readonly code: "not-reached"; readonly failedAt: string }
  /**
   * A validating webhook that matched, but another validating webhook's match failed (its
   * namespace could not be read, a matchCondition errored under failurePolicy Fail): the
   * validating dispatcher decides every hook before calling any, so it called none.
   */
  | { readonly code: "match-failed"; readonly failedAt: string };

/** A skipped hook in a prediction. Explain it with the Explainer `predict` returns beside the prediction. */
export interface SkipEntry {
  readonly stage: Stage;
  readonly hook: HookIdentity;
  /** `hookKey(hook)`. */
  readonly key: string;
  readonly reason: SkipReason;
}

/** The request fails at this hook before (or instead of) calling it. */
export interface HookFailure {
  readonly status: 400 | 403 | 404 | 422 | 500;
  readonly message: string;
}

/** Result of matching one hook. */
export type HookMatch =
  | {
      readonly kind: "call";
      readonly via: MatchedVia;
      /**
       * A ValidatingAdmissionPolicy binding whose matchConditions failed to evaluate under
       * failurePolicy Fail: it is evaluated, and its one decision is this error, which its
       * validationActions act on (a warning for Warn, an audit annotation for Audit)…
       */
      readonly conditionError?: string;
      /** …and, for Deny, the request's rejection. */
      readonly failure?: HookFailure;
    }
  | { readonly kind: "skip"; readonly reason: SkipReason }
  | {
      readonly kind: "indeterminate";
      readonly via: MatchedVia;
      /** What the call depends on: a matchCondition, or a selector requirement. */
      readonly dependsOn: "matchCondition" | "namespaceSelector" | "objectSelector";
      /** The matchCondition's name, or the requirement's text (e.g. `key in (a,b)`). */
      readonly condition: string;
      readonly reason: string;
    }
  | {
      readonly kind: "fail";
      readonly via: MatchedVia | undefined;
      readonly failure: HookFailure;
      /**
       * Where the request fails: `match` (absent) while the dispatcher decides which hooks to
       * call (ShouldCallHook: the namespace cannot be read, a selector or a matchCondition
       * errors), or `call` when the webhook is about to be called (the dry-run checks of
       * callHook). The validating dispatcher matches every hook before calling any, so a `match`
       * failure there means no validating webhook is called; a `call` failure leaves the others'
       * parallel calls alone.
       */
      readonly phase?: "call";
    };

/** The shared "no rule matches" reason (allocated once). */
export const RULES_REASON: SkipReason = Object.freeze({ code: "rules" });

/** A "call" match outcome. */
export type OwnCall = HookMatch & { readonly kind: "call" };
/** A "skip" match outcome. */
export type SkipMatch = HookMatch & { readonly kind: "skip" };
