/**
 * Resolving the "possible" round-1 reinvocations of a prediction once it is known which calls
 * changed the object (`reinvocation.go`, `mutating/dispatcher.go`, reference §3.4): round 1
 * happens only if some round-0 call changed the object, and re-runs an IfNeeded webhook only if
 * a webhook after it in round 0 changed the object — its own change never counts.
 */
import type { Prediction, PredictedCall } from "@/lib/admission/prediction/predict";

/** The mutating webhook calls, in call order, with their round, given which round-0 calls mutated. */
export function resolveMutatingRounds(
  prediction: Prediction,
  mutatedKeys: ReadonlySet<string>,
): PredictedCall[] {
  const round0 = prediction.calls.filter((c) => c.stage === "mutating-webhook" && c.round === 0);
  if (!round0.some((c) => mutatedKeys.has(c.key))) return round0;
  const changedAfter = new Set<string>();
  let laterMutated = false;
  for (let i = round0.length - 1; i >= 0; i--) {
    const c = round0[i] as PredictedCall;
    if (laterMutated) changedAfter.add(c.key);
    if (mutatedKeys.has(c.key)) laterMutated = true;
  }
  const round1 = prediction.calls.filter(
    (c) => c.stage === "mutating-webhook" && c.round === 1 && changedAfter.has(c.key),
  );
  return [...round0, ...round1];
}
