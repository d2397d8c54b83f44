/**
 * An index from resource name to the hooks whose rules could name it, so a prediction looks
 * closely only at candidates and skips the rest as "no rule names this resource".
 */
import {
  ruleMatches,
  type CompiledRule,
  type RuleAttributes,
} from "@/lib/admission/model/rule-matcher";

/** Candidate hooks (ascending positions) for a resource name. */
export interface HookIndex {
  readonly size: number;
  candidates(resource: string): Int32Array;
}

/** Builds the index from each hook's rules (position = array index). */
export function buildHookIndex(rulesPerHook: ReadonlyArray<readonly CompiledRule[]>): HookIndex {
  const exact = new Map<string, number[]>();
  const wildcard: number[] = [];
  rulesPerHook.forEach((rules, hook) => {
    const names = new Set<string>();
    let any = false;
    for (const r of rules) {
      for (const [res] of r.resources) {
        if (res === "*") any = true;
        else names.add(res);
      }
    }
    if (any) wildcard.push(hook);
    else
      for (const n of names) {
        const list = exact.get(n);
        if (list) list.push(hook);
        else exact.set(n, [hook]);
      }
  });
  const memo = new Map<string, Int32Array>();
  const merged = (resource: string): Int32Array => {
    const own = exact.get(resource) ?? [];
    const out = new Int32Array(own.length + wildcard.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < own.length || j < wildcard.length) {
      const a = i < own.length ? (own[i] as number) : Infinity;
      const b = j < wildcard.length ? (wildcard[j] as number) : Infinity;
      if (a < b) {
        out[k++] = a;
        i++;
      } else {
        out[k++] = b;
        j++;
      }
    }
    return out;
  };
  for (const name of exact.keys()) memo.set(name, merged(name));
  const wildOnly = Int32Array.from(wildcard);
  return {
    size: rulesPerHook.length,
    candidates(resource) {
      return memo.get(resource) ?? wildOnly;
    },
  };
}

/**
 * What a prediction's hot loop needs per webhook, in flat arrays so it does not chase each
 * hook's objects: selector slots (`-1`: empty selector) and flags.
 */
export interface WebhookTable {
  readonly namespaceSlot: Int32Array;
  readonly objectSlot: Int32Array;
  /** `SIMPLE` and `DRY_RUN_SAFE` bits. */
  readonly flags: Uint8Array;
}

/** No matchConditions and no selector parse errors: the outcome is decided by selectors alone. */
export const SIMPLE = 1;
/** sideEffects None or NoneOnDryRun: a dry-run request is called like any other. */
export const DRY_RUN_SAFE = 2;

/** Hooks whose rules match a request's own GVR, with the index of the first matching rule. */
export interface RuleMatches {
  readonly hooks: Int32Array;
  readonly rules: Int32Array;
}

const MAX_SIGNATURES = 4096;

/**
 * A request's rule signature: everything `rules.Matcher.Matches` reads (operation, GVR,
 * subresource, scope class). Computed once per request (see MatchContext).
 */
export function ruleSignature(a: RuleAttributes): string {
  const clusterScoped =
    a.namespace === "" || (a.group === "" && a.version === "v1" && a.resource === "namespaces");
  return `${a.operation}|${a.group}|${a.version}|${a.resource}|${a.subresource}|${clusterScoped ? "C" : "N"}`;
}

/**
 * Memoises rule matching per request signature (operation, GVR, subresource, scope class):
 * everything `rules.Matcher.Matches` reads. Clusters have a bounded set of signatures, so after
 * the first request of a kind the rules cost one map lookup.
 */
export function buildRuleMatchCache(
  rulesPerHook: ReadonlyArray<readonly CompiledRule[]>,
  index: HookIndex,
): (attrs: RuleAttributes, signature: string) => RuleMatches {
  const memo = new Map<string, RuleMatches>();
  return (a, sig) => {
    const hit = memo.get(sig);
    if (hit) return hit;
    const hooks: number[] = [];
    const rules: number[] = [];
    for (const h of index.candidates(a.resource)) {
      for (const r of rulesPerHook[h] ?? []) {
        if (ruleMatches(r, a)) {
          hooks.push(h);
          rules.push(r.index);
          break;
        }
      }
    }
    const out = { hooks: Int32Array.from(hooks), rules: Int32Array.from(rules) };
    if (memo.size >= MAX_SIGNATURES) memo.clear();
    memo.set(sig, out);
    return out;
  };
}
