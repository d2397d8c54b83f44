/**
 * What the matching oracles share: the recorder hooks' patch, and the recorded calls of one
 * admission pass set side by side with a prediction's.
 */
import type {
  AdmissionRequest as RecordedRequest,
  JsonPatchOp,
  RecordedCall,
} from "../../cluster/harness/webhook-server";
import type { Prediction } from "../../lib/admission/prediction/predict";
import { resolveMutatingRounds } from "../../lib/admission/prediction/reinvocation";

/**
 * A recorder hook's patch: one annotation per hook, added only when missing, so its round-1 call
 * (a reinvocation) changes nothing.
 */
export function annotationPatch(key: string) {
  return (req: RecordedRequest): JsonPatchOp[] => {
    const obj = req.object as
      { metadata?: { annotations?: Record<string, string> } } | null | undefined;
    if (!obj?.metadata || (req.operation !== "CREATE" && req.operation !== "UPDATE")) return [];
    if (obj.metadata.annotations?.[key] === "1") return [];
    return obj.metadata.annotations
      ? [{ op: "add", path: `/metadata/annotations/${key.replace("/", "~1")}`, value: "1" }]
      : [{ op: "add", path: "/metadata/annotations", value: { [key]: "1" } }];
  };
}

/**
 * Mutating calls as `hook@round`, recorded and predicted: which hooks' first calls patched (the
 * recorder knows) decides the predicted reinvocation round. `shortOf` names a hook of ours by
 * its recorder name, undefined for any other hook.
 */
export function mutatingRounds(
  recorded: RecordedCall[],
  prediction: Prediction,
  shortOf: (hookName: string) => string | undefined,
): { actual: string[]; expected: string[]; mutated: string[] } {
  const seen = new Map<string, number>();
  const actual = recorded.map((c) => {
    const round = seen.get(c.hook) ?? 0;
    seen.set(c.hook, round + 1);
    return `${c.hook}@${round}`;
  });
  const keyOf = new Map<string, string>();
  for (const c of prediction.calls) {
    const s = shortOf(c.hook.name);
    if (s !== undefined) keyOf.set(s, c.key);
  }
  const mutated = new Set<string>();
  const first = new Set<string>();
  for (const c of recorded) {
    if (first.has(c.hook)) continue;
    first.add(c.hook);
    if (c.patched) mutated.add(keyOf.get(c.hook) ?? `unpredicted:${c.hook}`);
  }
  const expected = resolveMutatingRounds(prediction, mutated)
    .filter((c) => shortOf(c.hook.name) !== undefined)
    .map((c) => `${shortOf(c.hook.name)}@${c.round}`);
  return { actual, expected, mutated: [...mutated] };
}

/** Validating hooks of ours the prediction calls, sorted. */
export function predictedValidating(
  prediction: Prediction,
  shortOf: (hookName: string) => string | undefined,
): string[] {
  return prediction.calls
    .filter((c) => c.stage === "validating-webhook" && shortOf(c.hook.name) !== undefined)
    .map((c) => shortOf(c.hook.name) as string)
    .sort();
}
