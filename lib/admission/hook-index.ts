/**
 * An index from resource name to the hooks whose rules could name it, so a prediction looks
 * closely only at candidates and skips the rest as "no rule names this resource".
 */
import type { CompiledRule } from "@/lib/admission/rules";

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
