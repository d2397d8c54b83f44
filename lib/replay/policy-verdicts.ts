/**
 * The ValidatingAdmissionPolicies of a replayed request evaluated offline (lib/admission/testing
 * policy-eval.ts, the evaluator `portcullis test` uses): each binding the prediction certainly
 * calls — its matchConstraints, matchConditions and paramRef already decided by the predictor —
 * run with its policy's variables and validations, its params and its validationActions, so a
 * replay can say which requests an edit newly denies, allows or warns, with the policy's message.
 *
 * What it cannot know it says (`undecided`, with the reason), never guessing: the object a
 * mutating webhook or policy may have changed first, an object the audit event did not hold, a
 * param object not read in full, an expression this evaluator cannot run. Pure.
 */
import type { HookIdentity } from "@/lib/admission/model/hook-identity";
import type { AdmissionRequest, JsonObject } from "@/lib/admission/model/request";
import type { AdmissionSnapshot } from "@/lib/admission/model/snapshot";
import type { KubernetesMinor } from "@/lib/admission/model/kubernetes-minor";
import type { Prediction, PredictedCall } from "@/lib/admission/prediction/predict";
import {
  combineEvaluations,
  evaluateValidating,
  type ValidatingEvaluation,
} from "@/lib/admission/testing/policy-eval";

/** A binding's verdict on one request. */
export type PolicyVerdict =
  | {
      readonly result: "allowed" | "audited";
    }
  | {
      readonly result: "denied";
      /** The apiserver's message: `ValidatingAdmissionPolicy 'p' with binding 'b' denied request: …`. */
      readonly message: string;
    }
  | {
      readonly result: "warned";
      /** The warnings the apiserver returns, joined. */
      readonly message: string;
    }
  | { readonly result: "undecided"; readonly message: string };

/** A binding the request is evaluated by, and its verdict. */
export interface PolicyVerdictEntry {
  readonly key: string;
  readonly hook: HookIdentity;
  readonly verdict: PolicyVerdict;
}

/** Param objects in full, by `apiVersion/kind`, then `namespace/name` (or `name`). */
export type FullParams = ReadonlyMap<string, ReadonlyMap<string, JsonObject>>;

type PolicyObject = NonNullable<AdmissionSnapshot["validatingAdmissionPolicies"]>[number];
type BindingObject = NonNullable<AdmissionSnapshot["validatingAdmissionPolicyBindings"]>[number];

/** One snapshot's policies and bindings by name (made once per replay). */
export interface PolicyIndex {
  readonly policies: ReadonlyMap<string, PolicyObject>;
  readonly bindings: ReadonlyMap<string, BindingObject>;
  readonly namespaces: AdmissionSnapshot["namespaces"];
  readonly params: FullParams | undefined;
  /** The snapshot's minor: the policies' CEL is evaluated as its cel-go (default: the newest). */
  readonly minor: KubernetesMinor | undefined;
}

export function policyIndex(s: AdmissionSnapshot, params?: FullParams): PolicyIndex {
  const policies = new Map<string, PolicyObject>();
  for (const p of s.validatingAdmissionPolicies ?? []) policies.set(p.metadata?.name ?? "", p);
  const bindings = new Map<string, BindingObject>();
  for (const b of s.validatingAdmissionPolicyBindings ?? [])
    bindings.set(b.metadata?.name ?? "", b);
  return { policies, bindings, namespaces: s.namespaces, params, minor: s.kubernetes?.minor };
}

/**
 * Evaluations shared between the two sides of one request: a binding whose policy and binding
 * objects are the same before and after the edit (the edit replaced neither) gives the same
 * verdict on both, and is evaluated once.
 */
export type EvaluationCache = Map<PolicyObject, Map<BindingObject, PolicyVerdict>>;

const undecided = (message: string): PolicyVerdict => ({ result: "undecided", message });

function verdictOf(e: ValidatingEvaluation): PolicyVerdict {
  if (!e.decided) return undecided(e.reason);
  switch (e.result) {
    case "denied":
      return { result: "denied", message: e.denial ?? "" };
    case "warned":
      return { result: "warned", message: e.warnings.join("; ") };
    default:
      return { result: e.result };
  }
}

/** Whether a request's policy evaluation is worth doing at all: a validating policy is called. */
export function callsValidatingPolicy(p: Prediction): boolean {
  for (const c of p.calls) if (c.stage === "validating-policy") return true;
  return false;
}

/** The request's namespace as a policy sees it (its name and labels), made once per request. */
const namespaces = new WeakMap<AdmissionRequest, JsonObject | null>();

function namespaceObjectOf(request: AdmissionRequest, index: PolicyIndex): JsonObject | null {
  const known = namespaces.get(request);
  if (known !== undefined) return known;
  const ns = request.namespace ?? "";
  const o: JsonObject | null =
    ns === "" || request.resource === "namespaces"
      ? null
      : {
          apiVersion: "v1",
          kind: "Namespace",
          metadata: {
            name: ns,
            labels: request.namespaceObject?.labels ?? index.namespaces?.[ns] ?? {},
          },
        };
  namespaces.set(request, o);
  return o;
}

const isMutating = (stage: string) => stage === "mutating-webhook" || stage === "mutating-policy";

/**
 * The verdicts of the validating policy bindings the prediction certainly calls, in its order.
 * `objectKnown` false: the request's object is a stub (the audit event did not hold it).
 */
export function policyVerdicts(
  p: Prediction,
  request: AdmissionRequest,
  index: PolicyIndex,
  objectKnown: boolean,
  cache?: EvaluationCache,
): PolicyVerdictEntry[] {
  const out: PolicyVerdictEntry[] = [];
  // What may change the object before the validating policies see it.
  const mutator =
    p.calls.find((c) => isMutating(c.stage)) ?? p.indeterminate.find((x) => isMutating(x.stage));
  const failing = new Set([p.failure?.key, ...p.alsoFailing.map((f) => f.key)]);
  for (const call of p.calls) {
    if (call.stage !== "validating-policy" || call.round !== 0 || call.certainty !== "certain")
      continue;
    // Its failure (params not found, a failing matchCondition) is the prediction's own verdict.
    if (failing.has(call.key) || call.conditionError !== undefined) continue;
    out.push({ key: call.key, hook: call.hook, verdict: evaluate(call) });
  }
  return out;

  function evaluate(call: PredictedCall): PolicyVerdict {
    if (mutator)
      return undecided(
        `${mutator.hook.source} ${mutator.hook.configuration} may change the object before the policy sees it`,
      );
    if (!objectKnown) return undecided("the audit event did not hold the object (Metadata level)");
    const policy = index.policies.get(call.hook.configuration);
    const binding = index.bindings.get(call.hook.name);
    if (!policy || !binding) return undecided("the policy or its binding is not known");
    const cached = cache?.get(policy)?.get(binding);
    if (cached) return cached;
    const v = evaluateCall(call, policy, binding);
    if (cache) {
      let byBinding = cache.get(policy);
      if (!byBinding) cache.set(policy, (byBinding = new Map()));
      byBinding.set(binding, v);
    }
    return v;
  }

  function evaluateCall(
    call: PredictedCall,
    policy: PolicyObject,
    binding: BindingObject,
  ): PolicyVerdict {
    const pk = policy.spec?.paramKind;
    let params: (JsonObject | null)[] = [null];
    if (pk) {
      if (call.params === undefined)
        return undecided(call.paramsNote ?? "its param objects are not known");
      const byName = index.params?.get(`${pk.apiVersion ?? ""}/${pk.kind ?? ""}`);
      const found: JsonObject[] = [];
      for (const n of call.params) {
        const o = byName?.get(n);
        if (!o) return undecided(`its param object ${n} was not read in full`);
        found.push(o);
      }
      if (found.length > 0) params = found;
    }
    const namespaceObject = namespaceObjectOf(request, index);
    const evals = params.map((param) =>
      evaluateValidating(policy as Parameters<typeof evaluateValidating>[0], binding, {
        request,
        object: request.object ?? null,
        params: param,
        namespaceObject,
        namespacePartial: true,
        ...(index.minor ? { minor: index.minor } : {}),
      }),
    );
    return verdictOf(combineEvaluations(evals));
  }
}
