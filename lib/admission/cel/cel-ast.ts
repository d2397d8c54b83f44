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

/** String literals blanked to spaces, same length, so offsets still point into the original. */
export function maskStrings(expr: string): string {
  return expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, (m) =>
    m.length < 2 ? m : `${m[0]}${" ".repeat(m.length - 2)}${m[m.length - 1]}`,
  );
}

const EQUALITY = new Set(["==", "!="]);
const RELATIONS = new Set(["==", "!=", "<", "<=", ">", ">=", "in"]);

/** An expression rewritten for cel-js, and where its offsets are in the original. */
export interface FoldedText {
  text: string;
  toOriginal(offset: number): number;
}

type Relation = CelNode & { args: [CelNode, CelNode] };

const isRelation = (v: unknown): v is Relation =>
  isCelNode(v) && RELATIONS.has(v.op) && Array.isArray(v.args) && v.args.length === 2;

/** Each "(" of `code` (strings masked) → its ")". */
function parenPairs(code: string): Map<number, number> {
  const pairs = new Map<number, number>();
  const open: number[] = [];
  for (let i = 0; i < code.length; i++) {
    if (code[i] === "(") open.push(i);
    else if (code[i] === ")") {
      const o = open.pop();
      if (o !== undefined) pairs.set(o, i);
    }
  }
  return pairs;
}

/**
 * cel-go reads every relation (== != < <= > >= in) at one precedence, left to right (CEL.g4's
 * `relation op relation`): `a != b <= c` is `(a != b) <= c`. cel-js 8.0.0 binds == and != looser
 * than the others and reads `a != (b <= c)`, which type-checks and evaluates differently (the
 * apiserver refuses `object != x <= ''`: no `_<=_` for (bool, string)). Returns the text with
 * every chain cel-js would split that way parenthesized left to right, so it builds cel-go's
 * tree, and where its offsets fall in `expr`; undefined when no chain needs it.
 */
export function leftFoldedRelations(expr: string, ast: unknown): FoldedText | undefined {
  const nodes = celNodes(ast);
  if (!nodes.some((n) => isRelation(n) && EQUALITY.has(n.op) && isRelation(n.args[1])))
    return undefined;
  const code = maskStrings(expr);
  const pairs = parenPairs(code);
  const space = (i: number) => /\s/.test(code[i] ?? "");
  /** A node's text with every pair of parentheses around exactly it. */
  const extent = (n: CelNode) => {
    let start = n.start;
    let end = n.end;
    for (;;) {
      let i = start - 1;
      while (i >= 0 && space(i)) i--;
      const close = code[i] === "(" ? pairs.get(i) : undefined;
      if (close === undefined) break;
      let j = end;
      while (j < close && space(j)) j++;
      if (j !== close) break;
      start = i;
      end = close + 1;
    }
    return { start, end };
  };
  // Relations that are another's operand as written (not parenthesized): one chain with it.
  const chained = new Set<CelNode>();
  for (const n of nodes)
    if (isRelation(n))
      for (const a of n.args) if (isRelation(a) && extent(a).start === a.start) chained.add(a);
  const inserts: Array<{ at: number; text: string }> = [];
  for (const root of nodes) {
    if (!isRelation(root) || chained.has(root)) continue;
    // The chain's operands in source order, and whether cel-js nested a relation under an
    // equality to its right (the only way its tree differs from the left fold).
    const operands: CelNode[] = [];
    let misread = false;
    const stack: CelNode[] = [root];
    while (stack.length > 0) {
      const x = stack.pop() as CelNode;
      if (isRelation(x) && (x === root || chained.has(x))) {
        const [left, right] = x.args;
        if (EQUALITY.has(x.op) && chained.has(right) && !EQUALITY.has(right.op)) misread = true;
        stack.push(right, left);
      } else operands.push(x);
    }
    if (!misread) continue;
    // ((o0 op o1) op o2) op o3: k - 1 pairs for k operators.
    const first = extent(operands[0] as CelNode).start;
    for (let i = 1; i < operands.length - 1; i++) {
      inserts.push({ at: first, text: "(" });
      inserts.push({ at: extent(operands[i] as CelNode).end, text: ")" });
    }
  }
  if (inserts.length === 0) return undefined;
  inserts.sort((a, b) => a.at - b.at);
  let text = "";
  let from = 0;
  for (const { at, text: t } of inserts) {
    text += expr.slice(from, at) + t;
    from = at;
  }
  text += expr.slice(from);
  return {
    text,
    toOriginal(offset) {
      // The i-th insertion sits at its place plus the i inserted before it.
      let original = offset;
      for (let i = 0; i < inserts.length; i++) {
        const at = (inserts[i] as { at: number }).at + i;
        if (at < offset) original--;
        else return at === offset ? (inserts[i] as { at: number }).at : original;
      }
      return original;
    },
  };
}
