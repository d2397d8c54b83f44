/**
 * The syntax tree @marcbachmann/cel-js 8.0.0 builds (`program.ast`), as the matchConditions
 * evaluator and the validator read it: nodes `{ op, args, pos, start, end }` — `call` and `rcall`
 * hold the function name first, `value` a literal. Their unit tests fail if cel-js changes shape.
 */

export interface CelNode {
  op: string;
  args: unknown;
  pos: number;
  start: number;
  end: number;
}

export const isCelNode = (v: unknown): v is CelNode =>
  typeof v === "object" && v !== null && "op" in v && "args" in v && "pos" in v;

/** Every node, parents before children (an iterative walk: no recursion on depth). */
export function celNodes(root: unknown): CelNode[] {
  const out: CelNode[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    else if (isCelNode(v)) {
      out.push(v);
      stack.push(v.args);
    }
  }
  return out;
}

/** A cel-js uint (it wraps them; ints are bigints). */
export const isCelUint = (v: unknown): v is { valueOf(): bigint } =>
  typeof v === "object" && v !== null && v.constructor?.name === "UnsignedInt";
