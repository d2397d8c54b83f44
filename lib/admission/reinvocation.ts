/**
 * Resolving the "possible" round-1 reinvocations of a prediction once it is known which calls
 * changed the object (`reinvocation.go`, `mutating/dispatcher.go`, reference §3.4): round 1
 * happens only if some round-0 call changed the object, and re-runs an IfNeeded webhook only if
 * a webhook after it in round 0 changed the object — its own change never counts.
 */
import type { Prediction, PredictedCall } from "@/lib/admission/predict";

/** The mutating webhook calls, in call order, with their round, given which round-0 calls mutated. */
export function resolveMutatingRounds(
  prediction: Prediction,
  mutatedKeys: ReadonlySet<string>,
): PredictedCall[] {
  const round0 = prediction.calls.filter((c) => c.stage === "mutating-webhook" && c.round === 0);
  const anyMutated = round0.some((c) => mutatedKeys.has(c.key));
  const round1 = anyMutated
    ? prediction.calls.filter((c) => {
        if (c.stage !== "mutating-webhook" || c.round !== 1) return false;
        const t = c.reinvocation;
        return t?.kind === "later-mutator" && t.after.some((k) => mutatedKeys.has(k));
      })
    : [];
  return [...round0, ...round1];
}
