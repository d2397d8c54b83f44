/**
 * Decisions counted by decider and outcome over a time window (GET /api/decisions/tally), and
 * what the overview makes of them: which webhooks and policies did not let requests through, the
 * ones that failed to do their job first. Pure.
 */
import type { DecisionOutcome, DeciderKind } from "@/lib/admission/audit/audit";
import { isPolicyKind, OUTCOME_TONES, type OutcomeTone } from "./outcomes";

/** How many decisions one webhook or policy made with one outcome in the window. */
export interface DecisionTally {
  kind: DeciderKind;
  /** The webhook's or policy's name, as the audit annotations give it. */
  hook: string;
  outcome: DecisionOutcome;
  count: number;
  /** The newest of them, ms since the epoch. */
  last: number;
}

/** GET /api/decisions/tally. */
export interface DecisionTallyResponse {
  /** The window, ms since the epoch: [from, to). */
  from: number;
  to: number;
  tallies: DecisionTally[];
  /** Whether more (decider, outcome) pairs were counted than returned (the largest are). */
  truncated: boolean;
}

/** The window the overview counts over. */
export const TALLY_WINDOW_MS = 15 * 60_000;

/** Most (decider, outcome) pairs one tally returns. */
export const TALLY_LIMIT = 1_000;

/** One webhook or policy: its decisions in the window by outcome. */
export interface DeciderTally {
  /** Feed filter field that selects it: webhooks by `hook`, policies by `policy`. */
  field: "hook" | "policy";
  name: string;
  counts: Partial<Record<DecisionOutcome, number>>;
  byTone: Record<OutcomeTone, number>;
  total: number;
  /** Its newest decision that did not simply let the request through (0 if none). */
  lastTrouble: number;
}

export interface TallySummary {
  total: number;
  byTone: Record<OutcomeTone, number>;
  /**
   * Deciders with at least one decision that did not simply let the request through: most
   * alarms (timeouts, errors, fail-opens) first, then most refusals, then most notes.
   */
  troubled: DeciderTally[];
  /** Deciders whose every decision let the request through. */
  quiet: number;
}

const noTones = (): Record<OutcomeTone, number> => ({ ok: 0, note: 0, refused: 0, alarm: 0 });

export function summarizeTallies(tallies: readonly DecisionTally[]): TallySummary {
  const byTone = noTones();
  const deciders = new Map<string, DeciderTally>();
  let total = 0;
  for (const t of tallies) {
    const tone = OUTCOME_TONES[t.outcome];
    if (tone === undefined || !(t.count > 0)) continue;
    const field = isPolicyKind(t.kind) ? "policy" : "hook";
    // A webhook and a policy may share a name: they are different deciders.
    const key = `${field}\u0000${t.hook}`;
    let d = deciders.get(key);
    if (!d) {
      d = { field, name: t.hook, counts: {}, byTone: noTones(), total: 0, lastTrouble: 0 };
      deciders.set(key, d);
    }
    d.counts[t.outcome] = (d.counts[t.outcome] ?? 0) + t.count;
    d.byTone[tone] += t.count;
    d.total += t.count;
    if (tone !== "ok") d.lastTrouble = Math.max(d.lastTrouble, t.last);
    byTone[tone] += t.count;
    total += t.count;
  }
  const all = [...deciders.values()];
  const troubled = all
    .filter((d) => d.total > d.byTone.ok)
    .sort(
      (a, b) =>
        b.byTone.alarm - a.byTone.alarm ||
        b.byTone.refused - a.byTone.refused ||
        b.byTone.note - a.byTone.note ||
        a.name.localeCompare(b.name),
    );
  return { total, byTone, troubled, quiet: all.length - troubled.length };
}
