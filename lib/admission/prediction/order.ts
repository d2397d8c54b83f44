/**
 * The effective call order (reference §3.1–§3.4, §5.3, §6.1): mutating admission policies then
 * mutating webhooks in round 0, an optional round 1 for reinvocable hooks, then validating
 * policies and validating webhooks (webhooks in parallel). Also the worst-case added latency.
 */
import type { CompiledSnapshot, Stage } from "@/lib/admission/matching/compiled";
import type { HookIdentity } from "@/lib/admission/model/hook-identity";

export type { Stage };

/** One configured hook in its static place. */
export interface OrderedHook {
  readonly stage: Stage;
  readonly hook: HookIdentity;
  /** 0-based index in its stage's merged list (the `index` of mutation audit annotations). */
  readonly index: number;
  readonly timeoutSeconds: number;
  readonly reinvocationPolicy: "Never" | "IfNeeded" | undefined;
  /** Validating webhooks run concurrently; everything else serially. */
  readonly parallel: boolean;
  /** False for policies: the apiserver walks a Go map (§5.1). */
  readonly orderGuaranteed: boolean;
}

/** Every configured hook in effective order, regardless of any request. */
export function effectiveOrder(s: CompiledSnapshot): OrderedHook[] {
  const out: OrderedHook[] = [];
  s.initializers.forEach((h, index) =>
    out.push({
      stage: "initializer",
      hook: h.id,
      index,
      timeoutSeconds: 0,
      reinvocationPolicy: undefined,
      parallel: false,
      orderGuaranteed: true,
    }),
  );
  s.mutatingPolicies.forEach((h, index) =>
    out.push({
      stage: "mutating-policy",
      hook: h.id,
      index,
      timeoutSeconds: 0,
      reinvocationPolicy: h.reinvocationPolicy,
      parallel: false,
      orderGuaranteed: false,
    }),
  );
  s.mutating.forEach((h, index) =>
    out.push({
      stage: "mutating-webhook",
      hook: h.id,
      index,
      timeoutSeconds: h.timeoutSeconds,
      reinvocationPolicy: h.reinvocationPolicy,
      parallel: false,
      orderGuaranteed: true,
    }),
  );
  s.validatingPolicies.forEach((h, index) =>
    out.push({
      stage: "validating-policy",
      hook: h.id,
      index,
      timeoutSeconds: 0,
      reinvocationPolicy: undefined,
      parallel: false,
      orderGuaranteed: false,
    }),
  );
  s.validating.forEach((h, index) =>
    out.push({
      stage: "validating-webhook",
      hook: h.id,
      index,
      timeoutSeconds: h.timeoutSeconds,
      reinvocationPolicy: undefined,
      parallel: true,
      orderGuaranteed: true,
    }),
  );
  return out;
}

/** What could cause a round-0 hook to run again in round 1. */
export type ReinvocationTrigger =
  /** A mutator after it in round 0 may change the object (keys in call order). */
  | { readonly kind: "later-mutator"; readonly after: readonly string[] }
  /** Only if in-tree plugins, policies or earlier reinvoked hooks change the object in round 1. */
  | { readonly kind: "round-one-change" };

/** A round-0 call as the reinvocation planner needs it. */
export interface MutatingCall {
  readonly key: string;
  readonly stage: "mutating-policy" | "mutating-webhook";
  readonly reinvocationPolicy: "Never" | "IfNeeded";
  readonly timeoutSeconds: number;
}

/**
 * Round 1 (`reinvocation.go`, `mutating/dispatcher.go`): it happens only if some webhook or
 * policy changed the object in round 0, and re-runs only IfNeeded hooks that ran in round 0,
 * in the same order. Whether hooks mutate is unknowable offline, so every entry is "possible".
 */
export function planReinvocation(
  round0: readonly MutatingCall[],
): Array<{ readonly call: MutatingCall; readonly trigger: ReinvocationTrigger }> {
  const out: Array<{ call: MutatingCall; trigger: ReinvocationTrigger }> = [];
  // Policies run before webhooks, so every later entry is a later mutator for both kinds:
  // a webhook's change after a policy also makes the policy eligible (its own context
  // compares the object at the start of round 1).
  const n = round0.length;
  let keys: string[] | undefined;
  for (let i = 0; i < n; i++) {
    const call = round0[i] as MutatingCall;
    if (call.reinvocationPolicy !== "IfNeeded") continue;
    if (i + 1 >= n) {
      out.push({ call, trigger: { kind: "round-one-change" } });
      continue;
    }
    keys ??= round0.map(keyOf);
    out.push({ call, trigger: { kind: "later-mutator", after: keys.slice(i + 1) } });
  }
  return out;
}

function keyOf(c: MutatingCall): string {
  return c.key;
}

/**
 * Worst-case added latency in seconds: serial mutating timeouts (both rounds) plus the largest
 * validating webhook timeout. Policies run in process and add no timeout.
 */
export function worstCaseLatency(
  mutatingTimeouts: readonly number[],
  validatingTimeouts: readonly number[],
): number {
  let sum = 0;
  for (const t of mutatingTimeouts) sum += t;
  let max = 0;
  for (const t of validatingTimeouts) if (t > max) max = t;
  return sum + max;
}
