/**
 * What a prediction holds: the calls in order and round, the hooks skipped and why, the hooks
 * whose call cannot be decided offline, the failure that ends admission, and PodSecurity's
 * verdict. `predict` (predict.ts) builds it; the report (report/predict-report.ts) prints it.
 */
import type { GroupVersionKind } from "@/lib/admission/model/request";
import type { HookIdentity } from "@/lib/admission/model/hook-identity";
import type { RuleMismatch } from "@/lib/admission/model/rule-matcher";
import type { MatchedVia, SkipEntry } from "@/lib/admission/matching/compiled";
import type { Exclusion, InTreeRejection } from "@/lib/admission/matching/exclusions";
import type { PodSecurityVerdict } from "@/lib/admission/pod-security/admission";
import type { ReinvocationTrigger, Stage } from "@/lib/admission/prediction/order";

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
