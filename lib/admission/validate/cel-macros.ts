/**
 * cel-go's two-variable comprehension macros (ext.TwoVarComprehensions, cel-go v0.29.2
 * ext/comprehensions.go), which the apiserver's environment has enabled since 1.32
 * (k8s.io/apiserver pkg/cel/environment base.go): `l.all(i, v, p)`, `m.exists(k, v, p)`,
 * `l.transformList(i, v, [filter,] t)` and the like. cel-js does not know them: it reads them as
 * calls of unknown functions whose first arguments are unknown variables.
 */
import { celNodes, isCelNode, type CelNode } from "@/lib/admission/cel/cel-ast";

/** Each macro's name and how many arguments it takes (receiver macros only). */
const TWO_VAR_MACROS: Readonly<Record<string, readonly number[]>> = {
  all: [3],
  exists: [3],
  existsOne: [3],
  exists_one: [3],
  transformList: [3, 4],
  transformMap: [3, 4],
  transformMapEntry: [3, 4],
};

/** The fold's accumulator (parser.AccumulatorName), which an iteration variable may not be. */
const ACCUMULATOR = "__result__";

/** A two-variable comprehension: the call, its iteration variables when both are names. */
export interface TwoVarComprehension {
  node: CelNode;
  args: unknown[];
  vars: [string, string] | undefined;
}

const identName = (n: unknown): string | undefined =>
  isCelNode(n) && n.op === "id" && typeof n.args === "string" ? n.args : undefined;

/** Every member call cel-go expands as a two-variable comprehension, outermost first. */
export function twoVarComprehensions(ast: unknown): TwoVarComprehension[] {
  const out: TwoVarComprehension[] = [];
  for (const n of celNodes(ast)) {
    if (n.op !== "rcall" || !Array.isArray(n.args)) continue;
    const [name, , args] = n.args as [unknown, unknown, unknown];
    if (typeof name !== "string" || !Array.isArray(args)) continue;
    if (!Object.hasOwn(TWO_VAR_MACROS, name) || !TWO_VAR_MACROS[name]?.includes(args.length))
      continue;
    const [a, b] = [identName(args[0]), identName(args[1])];
    out.push({ node: n, args, vars: a !== undefined && b !== undefined ? [a, b] : undefined });
  }
  return out;
}

/**
 * `l.sortBy(v, key)` (cel-go ext.Lists v2 and later; the apiserver's environment has v3 since
 * 1.34): a macro binding `v` in `key`, which cel-js reads as a call whose arguments are unknown
 * variables. Returned as comprehensions whose two variables are the one it binds.
 */
export function sortByComprehensions(ast: unknown): TwoVarComprehension[] {
  const out: TwoVarComprehension[] = [];
  for (const n of celNodes(ast)) {
    if (n.op !== "rcall" || !Array.isArray(n.args)) continue;
    const [name, , args] = n.args as [unknown, unknown, unknown];
    if (name !== "sortBy" || !Array.isArray(args) || args.length !== 2) continue;
    const v = identName(args[0]);
    out.push({ node: n, args, vars: v !== undefined ? [v, v] : undefined });
  }
  return out;
}

/** The one-variable macros of the same names (cel-go's parser), with their one arity. */
const ONE_VAR_MACROS = new Set(["all", "exists", "exists_one", "existsOne"]);

/**
 * Member calls named like a two-variable macro but with an arity no macro of that name has
 * (`l.all(i, v, p, q)`): cel-go expands no macro, and its checker reports a call of an undeclared
 * function at the call's parenthesis. Each call's name and the offset of its parenthesis in
 * `code` (the expression with its string literals masked), in the order of the text.
 */
export function undeclaredMacroNamedCalls(
  ast: unknown,
  code: string,
): Array<{ name: string; at: number }> {
  const out: Array<{ name: string; at: number }> = [];
  for (const n of celNodes(ast)) {
    if (n.op !== "rcall" || !Array.isArray(n.args)) continue;
    const [name, , args] = n.args as [unknown, unknown, unknown];
    if (typeof name !== "string" || !Array.isArray(args)) continue;
    if (!Object.hasOwn(TWO_VAR_MACROS, name) || TWO_VAR_MACROS[name]?.includes(args.length))
      continue;
    if (ONE_VAR_MACROS.has(name) && args.length === 2) continue;
    const first = args[0];
    const end = isCelNode(first) ? first.start : n.end;
    const paren = code.lastIndexOf("(", end);
    if (paren >= n.start) out.push({ name, at: paren });
  }
  return out.sort((a, b) => a.at - b.at);
}

/** A macro's parse error: the argument it is reported at and cel-go's message. */
export interface MacroIssue {
  at: CelNode;
  message: string;
}

/**
 * The parse errors cel-go's expansion raises (extractIterVars): an iteration variable that is not
 * a simple name, both the same name, or the accumulator's name. One per comprehension.
 */
export function twoVarMacroIssues(comprehensions: readonly TwoVarComprehension[]): MacroIssue[] {
  const out: MacroIssue[] = [];
  for (const { args } of comprehensions) {
    const [a, b] = args as [CelNode, CelNode];
    const [first, second] = [identName(a), identName(b)];
    if (first === undefined) out.push({ at: a, message: "argument must be a simple name" });
    else if (second === undefined) out.push({ at: b, message: "argument must be a simple name" });
    else if (first === second) out.push({ at: b, message: `duplicate variable name: ${second}` });
    else if (first === ACCUMULATOR)
      out.push({ at: a, message: "iteration variable overwrites accumulator variable" });
    else if (second === ACCUMULATOR)
      out.push({ at: b, message: "iteration variable overwrites accumulator variable" });
  }
  return out;
}

/**
 * Whether the part of `expr` that `n` spans may read an iteration variable of a comprehension
 * around it: what cel-js makes of such a part (an unknown variable, or a global of the same name)
 * is not what cel-go sees.
 */
export function readsIterationVariable(
  expr: string,
  n: CelNode,
  comprehensions: readonly TwoVarComprehension[],
): boolean {
  for (const c of comprehensions) {
    if (n.start < c.node.start || n.end > c.node.end || n === c.node) continue;
    if (!c.vars) return true;
    const text = expr.slice(n.start, n.end);
    if (c.vars.some((v) => new RegExp(`(^|[^\\w.])${v}\\b`).test(text))) return true;
  }
  return false;
}
