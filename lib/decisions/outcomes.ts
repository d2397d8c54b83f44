/** How each decision outcome and decider kind is named and weighted on the pages. Pure. */
import type { DecisionOutcome, DeciderKind } from "@/lib/admission/audit/audit";

export const OUTCOME_LABELS: Record<DecisionOutcome, string> = {
  admitted: "admitted",
  mutated: "mutated",
  denied: "denied",
  "failed-open": "failed open",
  error: "error",
  timeout: "timeout",
  rejected: "policy rejected",
  warned: "policy warned",
  audited: "policy audited",
};

/**
 * `alarm`: the hook did not do its job (timeouts, errors, fail-opens) — stands out;
 * `refused`: the request was refused as designed; `note`: a policy's warning or audit;
 * `ok`: let through.
 */
export type OutcomeTone = "ok" | "note" | "refused" | "alarm";

export const OUTCOME_TONES: Record<DecisionOutcome, OutcomeTone> = {
  admitted: "ok",
  mutated: "ok",
  denied: "refused",
  rejected: "refused",
  warned: "note",
  audited: "note",
  "failed-open": "alarm",
  error: "alarm",
  timeout: "alarm",
};

/** The outcomes of one tone, in OUTCOME_TONES's order. */
export function outcomesOfTone(tone: OutcomeTone): DecisionOutcome[] {
  return (Object.keys(OUTCOME_TONES) as DecisionOutcome[]).filter((o) => OUTCOME_TONES[o] === tone);
}

/** Chart colours, one per outcome (the same hues as the tones). */
export const OUTCOME_COLOURS: Record<DecisionOutcome, string> = {
  admitted: "#7fb08e",
  mutated: "#2457a6",
  denied: "#c2410c",
  rejected: "#e08a5b",
  warned: "#d4a72c",
  audited: "#b9a77a",
  "failed-open": "#8b5cf6",
  error: "#7f1d1d",
  timeout: "#b42318",
};

export const KIND_LABELS: Record<DeciderKind, string> = {
  "mutating-webhook": "mutating webhook",
  "validating-webhook": "validating webhook",
  webhook: "webhook",
  "validating-policy": "validating policy",
  "mutating-policy": "mutating policy",
  "pod-security": "in-tree PodSecurity plugin",
};

/** Whether a decider kind is an admission policy (its filter field is `policy`, not `hook`). */
export function isPolicyKind(kind: DeciderKind): boolean {
  return kind === "validating-policy" || kind === "mutating-policy" || kind === "pod-security";
}
