/**
 * Which webhooks of a stage one request needs looked at. The apiserver asks every webhook in
 * turn, and one whose rules cannot name the request's resource is skipped for its rules; two
 * tables compiled with the snapshot answer which those are without reading them:
 * - `byResource` (matching/hook-index.ts): the webhooks whose rules could name a resource;
 * - `ownRuleMatches`: which of those match the request's own GVR, and with which rule (memoised
 *   by the request's rule signature: operation, GVR, subresource, scope).
 * Under matchPolicy Equivalent a webhook may match through an equivalent resource instead, so
 * when the request's resource has equivalents the candidates are those of any of them.
 */
import type { RuleAttributes } from "@/lib/admission/model/rule-matcher";
import type { CompiledSnapshot, CompiledWebhook } from "@/lib/admission/matching/compiled";
import type { Equivalent } from "@/lib/admission/matching/equivalence";
import type { HookIndex, RuleMatches, WebhookTable } from "@/lib/admission/matching/hook-index";
import type { MatchContext } from "@/lib/admission/matching/match-context";

/** One webhook stage's hooks in call order, with the tables that narrow them per request. */
export interface WebhookStage {
  readonly stage: "mutating-webhook" | "validating-webhook";
  readonly hooks: readonly CompiledWebhook[];
  readonly byResource: HookIndex;
  readonly ownRuleMatches: (attrs: RuleAttributes, signature: string) => RuleMatches;
  /** Per hook: selector slots and whether its selectors alone decide a call. */
  readonly table: WebhookTable;
  /** Mutating webhooks are called one by one (a failure ends the stage); validating in parallel. */
  readonly serial: boolean;
  /** How many hooks at the head of `hooks` are static (loaded from a manifest directory). */
  readonly staticCount: number;
}

export function mutatingWebhooks(s: CompiledSnapshot): WebhookStage {
  return {
    stage: "mutating-webhook",
    hooks: s.mutating,
    byResource: s.mutatingIndex,
    ownRuleMatches: s.mutatingRuleMatches,
    table: s.mutatingTable,
    serial: true,
    staticCount: s.mutatingStatic,
  };
}

export function validatingWebhooks(s: CompiledSnapshot): WebhookStage {
  return {
    stage: "validating-webhook",
    hooks: s.validating,
    byResource: s.validatingIndex,
    ownRuleMatches: s.validatingRuleMatches,
    table: s.validatingTable,
    serial: false,
    staticCount: s.validatingStatic,
  };
}

/** The webhooks of a stage a request needs looked at; every other one is a rules skip. */
export interface WebhooksToExamine {
  /** Ascending positions of the webhooks whose rules may name the request (or an equivalent). */
  readonly candidates: Int32Array;
  /** Those whose rules match the request's own GVR (ascending), with the rule that matched. */
  readonly own: RuleMatches;
}

export function webhooksToExamine(stage: WebhookStage, ctx: MatchContext): WebhooksToExamine {
  const own = stage.ownRuleMatches(ctx.attrs, ctx.ruleSignature);
  // Hooks whose rules miss the request's own GVR can still match through an equivalent; only
  // hooks the index lists for some equivalent's resource can.
  const candidates =
    ctx.equivalents.length > 1 ? namingAnEquivalent(stage.byResource, ctx.equivalents) : own.hooks;
  return { candidates, own };
}

/** Sorted union of the index candidates for every equivalent's resource name. */
function namingAnEquivalent(index: HookIndex, equivalents: readonly Equivalent[]): Int32Array {
  const seen = new Uint8Array(index.size);
  let n = 0;
  for (const eq of equivalents)
    for (const h of index.candidates(eq.gvr.resource))
      if (seen[h] === 0) {
        seen[h] = 1;
        n++;
      }
  const out = new Int32Array(n);
  let k = 0;
  for (let h = 0; h < seen.length; h++) if (seen[h] === 1) out[k++] = h;
  return out;
}
