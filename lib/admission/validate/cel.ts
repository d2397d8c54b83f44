/**
 * Compile checks for CEL expressions, as far as @marcbachmann/cel-js can decide them. The
 * apiserver's environment has many Kubernetes libraries (quantity, url, ip, regex, sets, ...) that
 * this library does not know, so only verdicts both compilers share are reported: syntax errors,
 * undeclared top-level names, unknown fields of `request` / `variables`, and a result type that
 * is certainly wrong. Anything else is reported as "unknown" and produces no issue.
 */
import { Environment, parse } from "@marcbachmann/cel-js";
import {
  celNodes,
  isCelNode,
  leftFoldedRelations,
  maskStrings,
  type CelNode,
  type FoldedText,
} from "@/lib/admission/cel/cel-ast";
import {
  readsIterationVariable,
  sortByComprehensions,
  twoVarComprehensions,
  undeclaredMacroNamedCalls,
  twoVarMacroIssues,
  type TwoVarComprehension,
} from "./cel-macros";
import { callIssues, formatIssues } from "./cel-functions";
import {
  celAst,
  foldingError,
  intLiteralIssues,
  unaryMixIssues,
  literalIssues,
  literalSyntaxIssue,
  REQUEST_SCHEMA,
  undefinedRequestField,
} from "./cel-literals";

/** What the expression must evaluate to (ExpressionAccessor.ReturnTypes). */
export type CelReturn = "bool" | "string" | "string-or-null" | "any" | "jsonpatch" | "object";

/** Which optional variables the apiserver declares (plugincel.OptionalVariableDeclarations). */
export interface CelDecl {
  params: boolean;
  authorizer: boolean;
  /**
   * spec.variables an expression sees when the policy uses composition (undefined when `variables`
   * is not declared): each name with the type cel-go gave its expression (a cel-js type name), or
   * null where this module cannot tell that type. See declaredVariableType.
   */
  variables?: Record<string, string | null>;
}

/**
 * `error`: an Invalid compile error; `internal`: the InternalError the apiserver reports when
 * building the program fails (a constant conversion that cannot succeed).
 */
export type CelVerdict =
  | { kind: "ok" }
  | { kind: "error"; detail: string }
  | { kind: "internal"; detail: string }
  | { kind: "unknown" };

// Namespaces of Kubernetes/cel-go extension functions that cel-js sees as unknown variables.
// (cel-go ext.Sets, OptionalTypes, ext.Lists, ext.Strings v2 and library.Format in base.go).
// math.* and base64.* are not in the apiserver's environment: oracle 1.37.2 rejects them as
// undeclared references, so they are reported like any unknown name.
const extensionNamespaces = new Set(["sets", "optional", "lists", "strings", "format"]);

const envCache = new Map<string, Environment>();

function envFor(decl: CelDecl): Environment {
  const key = JSON.stringify([decl.params, decl.authorizer, decl.variables ?? null]);
  const cached = envCache.get(key);
  if (cached) return cached;
  const env = new Environment({
    unlistedVariablesAreDyn: false,
    // base.go enables cel.HomogeneousAggregateLiterals (oracle: `[1, 'a']` is rejected).
    homogeneousAggregateLiterals: true,
    enableOptionalTypes: true,
  });
  env.registerVariable("object", "dyn");
  env.registerVariable("oldObject", "dyn");
  env.registerVariable("namespaceObject", "dyn");
  env.registerVariable({ name: "request", schema: REQUEST_SCHEMA });
  if (decl.params) env.registerVariable("params", "dyn");
  if (decl.authorizer) {
    env.registerVariable("authorizer", "dyn");
    env.registerVariable("authorizer.requestResource", "dyn");
  }
  // The global form of matches, which cel-js lacks (cel-go has both).
  env.registerFunction("matches(string, string): bool", () => false);
  if (decl.variables) {
    const schema: Record<string, string> = {};
    for (const [name, type] of Object.entries(decl.variables)) schema[name] = type ?? "dyn";
    env.registerVariable({ name: "variables", schema });
  }
  if (envCache.size > 64) envCache.clear();
  envCache.set(key, env);
  return env;
}

interface CelLibError {
  message: string;
  code?: string;
  range?: { start: number; end: number };
}

function asLibError(e: unknown): CelLibError | undefined {
  if (typeof e !== "object" || e === null || !("message" in e)) return undefined;
  const m = (e as { message: unknown }).message;
  if (typeof m !== "string") return undefined;
  const code = "code" in e && typeof e.code === "string" ? e.code : undefined;
  const r = "range" in e ? e.range : undefined;
  const range =
    typeof r === "object" &&
    r !== null &&
    "start" in r &&
    "end" in r &&
    typeof r.start === "number" &&
    typeof r.end === "number"
      ? { start: r.start, end: r.end }
      : undefined;
  return { message: m, code, range };
}

/**
 * cel-go's issue text (common.Error.ToDisplayString): `ERROR: <input>:L:C: msg`, the source line
 * (tabs as spaces, left out past 16,384 bytes) and under it a dot per code point before the
 * column and a caret — full-width (U+FF0E, U+FF3E) for a code point of more than one UTF-8 byte.
 * Columns count code points, as cel-go's offsets do.
 */
function goIssue(expr: string, offset: number, msg: string): string {
  const before = expr.slice(0, offset);
  const line = before.split("\n").length;
  const lineStart = before.lastIndexOf("\n") + 1;
  const lead = [...expr.slice(lineStart, offset)];
  const head = `compilation failed: ERROR: <input>:${line}:${lead.length + 1}: ${msg}`;
  const snippet = (expr.split("\n")[line - 1] ?? "").replaceAll("\t", " ");
  if (byteLength(snippet) > 16_384) return head;
  const wide = (c: string | undefined) => c !== undefined && c.codePointAt(0)! > 0x7f;
  const dots = lead.map((c) => (wide(c) ? "\uff0e" : ".")).join("");
  const under = [...snippet][lead.length];
  return `${head}\n | ${snippet}\n | ${dots}${wide(under) ? "\uff3e" : "^"}`;
}

/** len(s) in Go: the UTF-8 bytes of `s`. */
function byteLength(s: string): number {
  let n = 0;
  for (const c of s) {
    const cp = c.codePointAt(0)!;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

const isIdentChar = (c: string) => /[A-Za-z0-9_.]/.test(c);

/**
 * Message construction (`Object{...}`, `Object.metadata{...}`, `JSONPatch{...}`) is valid CEL that
 * cel-js cannot parse. Its field initialisers (`name: value`) have the shape of map entries, so
 * with each type name blanked the text is a map literal with the same syntax: parsing that finds
 * the same syntax errors at the same offsets. Returns undefined when the expression constructs no
 * message. One backward walk per `{` over text no other walk covers: linear time.
 */
function asMapLiterals(expr: string): string | undefined {
  const code = maskStrings(expr);
  const out = expr.split("");
  let found = false;
  for (let i = 0; i < code.length; i++) {
    if (code[i] !== "{") continue;
    let j = i - 1;
    while (j >= 0 && /\s/.test(code[j]!)) j--;
    const end = j;
    while (j >= 0 && isIdentChar(code[j]!)) j--;
    const name = code.slice(j + 1, end + 1);
    if (name.length === 0 || /^[0-9]/.test(name) || name === "in") continue;
    found = true;
    // Walks stop at a quote, so these positions are outside string literals.
    for (let k = j + 1; k < i; k++) out[k] = " ";
  }
  return found ? out.join("") : undefined;
}

/** The syntax verdict of an expression that constructs messages. */
function messageSyntaxVerdict(expr: string): CelVerdict {
  const mapped = asMapLiterals(expr);
  if (mapped === undefined) return { kind: "unknown" };
  try {
    parse(mapped);
    return { kind: "unknown" };
  } catch (e) {
    const le = asLibError(e);
    const literal = le && literalSyntaxIssue(expr, le.code ?? "", le.range?.start ?? 0);
    if (literal === null) return { kind: "unknown" };
    if (literal) return { kind: "error", detail: goIssue(expr, literal.offset, literal.message) };
    if (!le || !syntaxCodes.test(le.code ?? "")) return { kind: "unknown" };
    const off = le.range?.start ?? 0;
    // `?field:` (optional field initialisers) is CEL that cel-js does not parse either.
    if (mapped[off] === "?") return { kind: "unknown" };
    return { kind: "error", detail: syntaxIssues(expr, off, le.message) };
  }
}

/** What cel-go's ANTLR parser expects where an expression must start. */
const EXPR_START =
  "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";
/** Text that ends with a binary or ternary operator, or a field's or entry's colon. */
const ENDS_WITH_OPERATOR = /(==|!=|<=|>=|<|>|&&|\|\||\+|-|\*|\/|%|\bin|\?|:)\s*$/;

/**
 * A syntax error as cel-go's ANTLR parser words it, where cel-js's wording is known to stand for
 * it (checked on the apiserver): an expression missing after an operator or colon, a message or
 * map literal missing its `}`, a string never closed (ANTLR reports the stray text, then the end
 * of input). Anything else keeps cel-js's wording.
 */
function syntaxIssues(expr: string, off: number, libMessage: string): string {
  const first = libMessage.split("\n")[0] ?? "";
  const code = maskStrings(expr);
  if (first === "Unexpected token: EOF" && ENDS_WITH_OPERATOR.test(code.slice(0, off)))
    return goIssue(expr, off, `Syntax error: mismatched input '<EOF>' expecting ${EXPR_START}`);
  const rbrace = /^Expected RBRACE, got (EOF|IDENTIFIER)$/.exec(first);
  if (rbrace) {
    const token =
      rbrace[1] === "EOF" ? "<EOF>" : (/^[A-Za-z_]\w*/.exec(expr.slice(off))?.[0] ?? "");
    if (token !== "")
      return goIssue(expr, off, `Syntax error: mismatched input '${token}' expecting {'}', ','}`);
  }
  const rest = expr.slice(off);
  if (
    first === "Unterminated string" &&
    !rest.includes("\n") &&
    (code.slice(0, off).trim() === "" || ENDS_WITH_OPERATOR.test(code.slice(0, off)))
  )
    return compileIssues(expr, [
      { offset: off, message: `Syntax error: token recognition error at: '${rest}'` },
      {
        offset: expr.length,
        message: `Syntax error: mismatched input '<EOF>' expecting ${EXPR_START}`,
      },
    ]);
  return goIssue(expr, off, "Syntax error: " + first);
}

/** cel-go's relations and calculations (the parser's relation and calc rules). */
const RELATIONS = ["==", "!=", "<", "<=", ">", ">=", "in"];
const CALCULATIONS = ["+", "-", "*", "/", "%"];
const BINARY_OPS = new Set([...RELATIONS, ...CALCULATIONS, "&&", "||"]);

/**
 * Where cel-go locates the expression that starts at `offset` (cel-js gives its start): its
 * operator for a binary operation, its dot for a selection, its parenthesis for a call, its
 * bracket for an index, its `?` for a conditional; its start otherwise.
 */
function goLocation(expr: string, offset: number): number {
  const ast = celAst(expr);
  if (!ast) return offset;
  // The outermost node starting there, or a selection cel-js places at its field (parents come
  // first).
  const n = celNodes(ast).find((x) => x.start === offset || (x.op === "." && x.pos === offset));
  if (!n || !Array.isArray(n.args)) return offset;
  const code = maskStrings(expr);
  const first = n.args[0] as unknown;
  const after = isCelNode(first) ? first.end : n.start;
  let at = -1;
  if (BINARY_OPS.has(n.op)) at = code.indexOf(n.op, after);
  else if (n.op === "." || n.op === ".?") at = code.indexOf(".", after);
  else if (n.op === "[]" || n.op === "[?]") at = code.indexOf("[", after);
  else if (n.op === "?:") at = code.indexOf("?", after);
  else if (n.op === "call" || n.op === "rcall")
    at = code.indexOf("(", n.op === "rcall" ? after : n.start);
  return at >= 0 && at < n.end ? at : offset;
}

function goTypeName(t: string): string {
  // cel-js names unresolved type parameters (`list<T>` for `[]`); cel-go prints them as dyn, and
  // null's type as null_type.
  return t
    .replace(/\bgoogle\.protobuf\.Duration\b/g, "duration")
    .replace(/\bgoogle\.protobuf\.Timestamp\b/g, "timestamp")
    .replace(/\b[A-Z]\b/g, "dyn")
    .replace(/\bnull\b(?!_)/g, "null_type")
    .replace(/</g, "(")
    .replace(/>/g, ")");
}

function returnMatches(type: string, ret: CelReturn): boolean {
  if (ret === "any") return true;
  // cel-js cannot build JSONPatch or Object values, so nothing it types can match these.
  if (ret === "jsonpatch" || ret === "object") return false;
  if (ret === "bool") return type === "bool";
  if (ret === "string") return type === "string";
  return type === "string" || type === "null_type" || type === "null";
}

function expected(ret: CelReturn): string {
  if (ret === "string-or-null") return "must evaluate to one of [string null_type]";
  if (ret === "jsonpatch") return "must evaluate to list(JSONPatch)";
  if (ret === "object") return "must evaluate to Object";
  return `must evaluate to ${ret}`;
}

const syntaxCodes = /^(reserved_identifier|unexpected|expected|invalid_escape|unterminated)/;
const goOperator: Record<string, string> = {
  "+": "_+_",
  "-": "_-_",
  "*": "_*_",
  "/": "_/_",
  "%": "_%_",
  "<": "_<_",
  "<=": "_<=_",
  ">": "_>_",
  ">=": "_>=_",
  "==": "_==_",
  "!=": "_!=_",
};
const concrete = /^(int|uint|double|string|bool|bytes|null_type|timestamp|duration)$/;
const numeric = /^(int|uint|double)$/;
// Calls whose result type cel-js and cel-go agree on; any other call may be a Kubernetes library
// function cel-js types as dyn while cel-go knows its real type.
const knownCalls = new Set([
  "dyn",
  "int",
  "uint",
  "double",
  "string",
  "type",
  "size",
  "has",
  "bool",
  "bytes",
  // (Every overload of these returns a timestamp, a duration.)
  "timestamp",
  "duration",
]);

function onlyKnownCalls(expr: string): boolean {
  const code = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, "''");
  // \b: a match starts only at a word's first character, so a long word costs linear time.
  for (const m of code.matchAll(/\b([A-Za-z_]\w*)\s*\(/g))
    if (!knownCalls.has(m[1] ?? "")) return false;
  return true;
}

/** Whether the `?` at `off` opens an optional list element or map entry (after `[`, `{` or `,`). */
function optionalEntryAt(expr: string, off: number): boolean {
  const code = maskStrings(expr);
  if (code[off] !== "?") return false;
  const before = code.slice(0, off).trimEnd();
  return /[[{,]$/.test(before);
}

function libErrorVerdict(expr: string, le: CelLibError): CelVerdict {
  const off = le.range?.start ?? 0;
  // cel-js checks a call's arguments first; cel-go sorts its issues by place, and a call of an
  // undeclared function is reported at its parenthesis, before any argument's.
  if (le.code === "unknown_variable") {
    const call = undeclaredMacroNamedCalls(celAst(expr), maskStrings(expr)).find((c) => c.at < off);
    if (call)
      return {
        kind: "error",
        detail: goIssue(expr, call.at, `undeclared reference to '${call.name}' (in container '')`),
      };
  }
  const code = le.code ?? "";
  // A literal cel-js cannot read: cel-go's parser refuses it too (its message, at its place).
  const literal = literalSyntaxIssue(expr, code, off);
  if (literal === null) return { kind: "unknown" };
  if (literal) return { kind: "error", detail: goIssue(expr, literal.offset, literal.message) };
  if (syntaxCodes.test(code)) {
    // `[?x]` and `{?k: v}` (optional list elements and map entries, cel.OptionalTypes): CEL
    // that cel-js does not parse.
    if (optionalEntryAt(expr, off)) return { kind: "unknown" };
    if (asMapLiterals(expr) !== undefined) return messageSyntaxVerdict(expr);
    return { kind: "error", detail: syntaxIssues(expr, off, le.message) };
  }
  if (code === "unknown_variable") {
    const name = /Unknown variable: ([\w.]+)/.exec(le.message)?.[1] ?? "";
    if (!name || extensionNamespaces.has(name.split(".")[0] ?? "")) return { kind: "unknown" };
    // library.IP's one namespaced function, which cel-js reads as a selection of `ip`.
    if (name === "ip" && /^ip\s*\.\s*isCanonical\s*\(/.test(maskStrings(expr).slice(off)))
      return { kind: "unknown" };
    return {
      kind: "error",
      detail: goIssue(expr, off, `undeclared reference to '${name}' (in container '')`),
    };
  }
  if (code === "no_such_key") {
    const name = /No such key: (\w+)/.exec(le.message)?.[1] ?? "";
    // cel-go reports a selection at its dot (`variables.y` at column 10, not 11).
    let at = off;
    const code = maskStrings(expr);
    if (code.startsWith(name, at)) {
      let j = at - 1;
      while (j >= 0 && /\s/.test(code[j] ?? "")) j--;
      if (code[j] === ".") at = j;
    }
    return { kind: "error", detail: goIssue(expr, at, `undefined field '${name}'`) };
  }
  if (code === "invalid_macro_argument" && /has\(\)/.test(le.message))
    return { kind: "error", detail: goIssue(expr, off, "invalid argument to has() macro") };
  if (code.startsWith("heterogeneous_")) {
    // cel-go's homogeneous-literal check skips the lists of string format calls.
    if (/\.\s*format\s*\(/.test(maskStrings(expr))) return { kind: "unknown" };
    const m = /expected type '([^']+)' but found '([^']+)'/.exec(le.message);
    if (!m || m[1]!.includes("dyn") || m[2]!.includes("dyn")) return { kind: "unknown" };
    return {
      kind: "error",
      detail: goIssue(
        expr,
        goLocation(expr, off),
        `expected type '${goTypeName(m[1]!)}' but found '${goTypeName(m[2]!)}'`,
      ),
    };
  }
  if (code === "no_such_overload") return overloadVerdict(expr, le);
  if (code === "no_matching_overload") {
    // size() of a value that has no size: cel-go reports it at the call's parenthesis.
    const m = /found no matching overload for 'size\((int|uint|double|bool|null_type)\)'/.exec(
      le.message,
    );
    if (!m) return { kind: "unknown" };
    const paren = maskStrings(expr).indexOf("(", off);
    return {
      kind: "error",
      detail: goIssue(
        expr,
        paren < 0 ? off : paren,
        `found no matching overload for 'size' applied to '(${m[1]})'`,
      ),
    };
  }
  return { kind: "unknown" };
}

/** A cel-js type (`list<int>`, `map<string, list<int>>`) with no dyn, type parameter or message. */
function fullyConcrete(t: string): boolean {
  const s = t.trim();
  if (concrete.test(s)) return true;
  const list = /^list<(.*)>$/.exec(s);
  if (list) return fullyConcrete(list[1] as string);
  const map = /^map<(.*)>$/.exec(s);
  if (!map) return false;
  // Split the key and value at the top-level comma.
  const inner = map[1] as string;
  let depth = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === "<") depth++;
    else if (c === ">") depth--;
    else if (c === "," && depth === 0)
      return fullyConcrete(inner.slice(0, i)) && fullyConcrete(inner.slice(i + 1));
  }
  return false;
}

/** Where cel-go reports an operator: at the operator itself, not where its left operand starts. */
function operatorOffset(
  expr: string,
  range: { start: number; end: number } | undefined,
  op: string,
) {
  const fallback = range?.start ?? 0;
  const ast = celAst(expr);
  if (!ast || !range) return fallback;
  for (const n of celNodes(ast)) {
    if (n.op !== op || n.start !== range.start || n.end !== range.end) continue;
    const left = Array.isArray(n.args) ? (n.args[0] as { end?: number } | undefined) : undefined;
    const at = maskStrings(expr).indexOf(op, left?.end ?? n.start);
    return at < 0 ? fallback : at;
  }
  return fallback;
}

const RELATIONAL = new Set(["<", "<=", ">", ">="]);

/**
 * An operator cel-go has no overload for. Verdicts only where both compilers certainly agree: the
 * operand types are fully concrete (cel-go would see the same types), and for <, <=, >, >= not
 * two numbers (the apiserver enables cross-type numeric comparisons; == and != stay strict).
 */
function overloadVerdict(expr: string, le: CelLibError): CelVerdict {
  const line = le.message.split("\n")[0] ?? "";
  const unary = /^no such overload: ([!-])(\S+)$/.exec(line);
  if (unary) {
    const [, op, operand] = unary as unknown as [string, string, string];
    if (!concrete.test(operand)) return { kind: "unknown" };
    // cel-go's parser drops pairs of `!` or `-` (`!!x` is x): only a lone operator is decided.
    const at = le.range?.start ?? 0;
    const code = maskStrings(expr);
    if (
      code
        .slice(at + 1)
        .trimStart()
        .startsWith(op) ||
      code.slice(0, at).trimEnd().endsWith(op)
    )
      return { kind: "unknown" };
    return {
      kind: "error",
      detail: goIssue(
        expr,
        le.range?.start ?? 0,
        `found no matching overload for '${op}_' applied to '(${operand})'`,
      ),
    };
  }
  const m = /^no such overload: (.+?) (==|!=|<=|>=|<|>|\+|-|\*|\/|%|in) (.+)$/.exec(line);
  if (!m) return { kind: "unknown" };
  const [, left, op, right] = m as unknown as [string, string, string, string];
  if (!fullyConcrete(left) || !fullyConcrete(right)) return { kind: "unknown" };
  if (RELATIONAL.has(op) && numeric.test(left) && numeric.test(right)) return { kind: "unknown" };
  const goOp = op === "in" ? "@in" : goOperator[op];
  if (!goOp) return { kind: "unknown" };
  return {
    kind: "error",
    detail: goIssue(
      expr,
      operatorOffset(expr, le.range, op),
      `found no matching overload for '${goOp}' applied to '(${goTypeName(left)}, ${goTypeName(right)})'`,
    ),
  };
}

/** Issues as cel-go prints several: one "compilation failed:" and an ERROR block each. */
function byOffset<T extends { offset: number }>(issues: T[]): T[] {
  return [...issues].sort((a, b) => a.offset - b.offset);
}

function compileIssues(expr: string, issues: Array<{ offset: number; message: string }>): string {
  return issues
    .map((i, k) => {
      const text = goIssue(expr, i.offset, i.message);
      return k === 0 ? text : text.replace(/^compilation failed: /, "");
    })
    .join("\n");
}

/** cel-go's parser limit (parser.MaxRecursionDepth's default; the apiserver keeps it). */
const RECURSION_LIMIT = 250;
/**
 * AST nodes cel-go's parse-tree visitor counts against the limit (Visit in parser.go): a
 * conditional, a relation, a calculation, a selection, a member call, an index.
 */
const COUNTED = new Set(["?:", ...RELATIONS, ...CALCULATIONS, ".", ".?", "rcall", "[]", "[?]"]);

/** A parser for measuring depth only: cel-js's own depth limit (250 of its levels) lifted. */
const deepParser = new Environment({ enableOptionalTypes: true, limits: { maxDepth: 5000 } });

/** The syntax tree of an expression however deep (for iterative walks), or undefined. */
function deepAst(expr: string): unknown {
  try {
    return (deepParser.parse(expr) as unknown as { ast: unknown }).ast;
  } catch {
    return undefined;
  }
}

/**
 * cel-go's two recursion limits, both parse errors reported before any type check (checked on the
 * apiserver at 247–251 levels of each shape):
 * - its ANTLR listener refuses a rule nested more than 250 times in itself ("expression recursion
 *   limit exceeded: 250"): the expression rule is entered once more inside every bracket
 *   (parentheses, list, map, call arguments, index) and in every conditional's else branch, so
 *   250 of them on one path are refused; a bracket level can add two to another rule's depth
 *   (`(1 + (1 + …` is refused at 125 levels), chains without brackets add nothing;
 * - its visitor refuses more than 250 nested conditionals, relations, calculations, selections,
 *   member calls and indexes ("max recursion depth exceeded"): a chain of 250 `+ 1` or `.a`.
 * Decided where the shape leaves no doubt (250 brackets or else branches on a path; a visitor
 * depth past 250 with fewer than 125 bracket and conditional levels); undefined otherwise.
 */
function recursionVerdict(expr: string): CelVerdict | undefined {
  const code = maskStrings(expr);
  let depth = 0;
  let brackets = 0;
  for (const c of code) {
    if (c === "(" || c === "[" || c === "{") brackets = Math.max(brackets, ++depth);
    else if (c === ")" || c === "]" || c === "}") depth--;
  }
  const at = (m: string) => ({
    kind: "error" as const,
    detail: `compilation failed: ERROR: <input>:-1:0: ${m}`,
  });
  const listener = at(`expression recursion limit exceeded: ${RECURSION_LIMIT}`);
  if (brackets >= RECURSION_LIMIT) return listener;
  // Every visited node or else branch takes at least two characters (`.a`, `+1`, `:1`).
  if (code.length <= 2 * RECURSION_LIMIT) return undefined;
  const ast = deepAst(expr);
  if (ast === undefined) return undefined;
  // Along any path (an iterative walk): the most visited nodes, conditionals and else branches.
  let visited = 0;
  let conditionals = 0;
  let elses = 0;
  const stack: Array<[unknown, number, number, number]> = [[ast, 0, 0, 0]];
  while (stack.length > 0) {
    const [v, n, q, e] = stack.pop() as [unknown, number, number, number];
    if (Array.isArray(v)) for (const c of v) stack.push([c, n, q, e]);
    else if (isCelNode(v)) {
      const counted = COUNTED.has(v.op) ? n + 1 : n;
      visited = Math.max(visited, counted);
      conditionals = Math.max(conditionals, q);
      elses = Math.max(elses, e);
      if (v.op === "?:" && Array.isArray(v.args)) {
        const [cond, then, otherwise] = v.args as unknown[];
        stack.push([cond, counted, q + 1, e], [then, counted, q + 1, e]);
        stack.push([otherwise, counted, q + 1, e + 1]);
      } else stack.push([v.args, counted, q, e]);
    }
  }
  if (elses >= RECURSION_LIMIT) return listener;
  if (visited > RECURSION_LIMIT && brackets + conditionals < RECURSION_LIMIT / 2)
    return at("max recursion depth exceeded");
  return undefined;
}

/**
 * Where cel-go's grammar refuses a conditional in a conditional's then branch without parentheses
 * (`a ? b ? c : d : e`; cel-js accepts it): the offset of the inner `?`, or -1. A `?` after `.`,
 * `[`, `{` or `,` is an optional selection, index or entry, not a conditional.
 */
function nestedConditional(expr: string): number {
  const code = maskStrings(expr);
  // Per bracket level: how many `?` still wait for their `:`.
  const open: number[] = [0];
  let prev = "";
  for (let i = 0; i < code.length; i++) {
    const c = code[i] as string;
    if (c === "(" || c === "[" || c === "{") open.push(0);
    else if (c === ")" || c === "]" || c === "}") open.pop();
    else if (c === "?" && !".[{,".includes(prev)) {
      if ((open.at(-1) ?? 0) > 0) return i;
      if (open.length > 0) open[open.length - 1] = (open.at(-1) ?? 0) + 1;
    } else if (c === ":" && (open.at(-1) ?? 0) > 0) open[open.length - 1] = (open.at(-1) ?? 0) - 1;
    if (!/\s/.test(c)) prev = c;
  }
  return -1;
}

/**
 * The type cel-js gives the part of `expr` that `n` spans, where cel-go would give the same: not
 * for a part calling functions cel-js may type differently, or reading an untyped variable or an
 * object cel-go types (namespaceObject, authorizer).
 */
function partType(
  expr: string,
  decl: CelDecl,
  n: unknown,
  comprehensions: readonly TwoVarComprehension[],
): string | undefined {
  if (!isCelNode(n) || readsIterationVariable(expr, n, comprehensions)) return undefined;
  const text = expr.slice(n.start, n.end);
  if (!onlyKnownCalls(text) || readsUntypedVariable(text, decl) || readsTypedObject(text))
    return undefined;
  try {
    const r = envFor(decl).check(text) as { valid: boolean; type?: string };
    return r.valid ? r.type : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Conditionals whose branches have different types, which cel-go refuses (`_?_:_` is (bool, A, A))
 * and cel-js lets through: decided only where the condition's and both branches' types are
 * concrete and certain. Reported at the `?`, innermost first (a conditional around a refused
 * one gets no type, so no error of its own), in the order of the text.
 */
function conditionalVerdict(
  expr: string,
  decl: CelDecl,
  comprehensions: readonly TwoVarComprehension[],
): CelVerdict | undefined {
  const ast = celAst(expr);
  if (!ast) return undefined;
  const code = maskStrings(expr);
  const typeOf = (n: CelNode | undefined): string | undefined => {
    const t = partType(expr, decl, n, comprehensions);
    return t !== undefined && fullyConcrete(t) && !t.includes("null") ? t : undefined;
  };
  const nodes = celNodes(ast);
  // Each conditional costs three type checks of its parts: past 32, nothing is decided.
  if (nodes.filter((n) => n.op === "?:").length > 32) return undefined;
  const refused: Array<{ start: number; end: number; offset: number; message: string }> = [];
  // Reversed pre-order: every node after all of its descendants.
  for (const n of nodes.reverse()) {
    if (n.op !== "?:" || !Array.isArray(n.args)) continue;
    if (refused.some((r) => r.start >= n.start && r.end <= n.end)) continue;
    const [cond, then, otherwise] = n.args as CelNode[];
    const types = [typeOf(cond), typeOf(then), typeOf(otherwise)];
    if (types.some((t) => t === undefined)) continue;
    if (types[0] === "bool" && types[1] === types[2]) continue;
    const q = code.indexOf("?", cond?.end ?? n.start);
    if (q < 0) continue;
    refused.push({
      start: n.start,
      end: n.end,
      offset: q,
      message: `found no matching overload for '_?_:_' applied to '(${types.map((t) => goTypeName(t as string)).join(", ")})'`,
    });
  }
  if (refused.length === 0) return undefined;
  refused.sort((a, b) => a.offset - b.offset);
  return { kind: "error", detail: compileIssues(expr, refused) };
}

const SCALAR = /^(int|uint|double|string|bool|bytes|timestamp|duration|type)$/;
/** Types cel-go has no index for even by a dyn key (measured: `timestamp(…)[dyn]`, `type(0)[dyn]`). */
const DYN_INDEX_REFUSED = /^(timestamp|duration|type)$/;
const NUMBER = /^(int|uint|double)$/;
/** Key types a map literal's type can carry (cel-go indexes a map by its key type, or dyn). */
const MAP_KEY = /^map<(int|uint|string|bool), /;

/**
 * What cel-go says a node's type is in an `_[_]` message: cel-js's, in cel-go's words, with the
 * type a `type(x)` call returns spelled out (`type(int)`; cel-js says `type`).
 */
function indexTypeName(
  expr: string,
  decl: CelDecl,
  n: CelNode,
  t: string,
  comprehensions: readonly TwoVarComprehension[],
): string {
  const args = n.op === "call" && Array.isArray(n.args) ? (n.args as unknown[]) : [];
  if (goTypeName(t) === "type" && args[0] === "type" && Array.isArray(args[1])) {
    const of = partType(expr, decl, (args[1] as unknown[])[0], comprehensions);
    if (of !== undefined) return `type(${goTypeName(of)})`;
  }
  return goTypeName(t);
}

/**
 * An index into a value that has none (`1u[x]`, `timestamp(…)[x]`, `type(0)[x]`), or into a map
 * literal by a key of another type (`{'k': 1}[[]]`), which cel-js lets through and cel-go
 * refuses: reported at the `[` where the index's type is known (dyn included), undecided where
 * it is not.
 */
function indexVerdict(
  expr: string,
  decl: CelDecl,
  comprehensions: readonly TwoVarComprehension[],
): CelVerdict | undefined {
  const ast = celAst(expr);
  if (!ast) return undefined;
  const code = maskStrings(expr);
  for (const n of celNodes(ast).reverse()) {
    if (n.op !== "[]" || !Array.isArray(n.args)) continue;
    const [target, index] = n.args as [CelNode, CelNode];
    const t = partType(expr, decl, target, comprehensions);
    if (t === undefined) continue;
    const i = partType(expr, decl, index, comprehensions);
    const key = MAP_KEY.exec(t)?.[1];
    if (key !== undefined) {
      // A map is indexed by its key's type or dyn; any other type is refused. (Numbers of
      // another kind, `{1: 'a'}[1u]`, are left undecided: not measured.)
      const k = i === undefined ? undefined : goTypeName(i);
      const numbers = NUMBER.test(key) && NUMBER.test(k ?? "");
      if (k === undefined || k === "dyn" || k === key || numbers) continue;
    } else if (!SCALAR.test(goTypeName(t))) continue;
    // (A map's key was compared above.) A dyn index is refused for some scalars (cel-go's
    // message names it dyn). null is not among them: cel-go's checker resolves `null[k]` by the
    // index overloads for any k (`null[1]` as a list's, `null['a']` as an optional_type(dyn)).
    const dynRefused = i === "dyn" && DYN_INDEX_REFUSED.test(goTypeName(t));
    if (i === undefined || (key === undefined && !fullyConcrete(i) && !dynRefused))
      return { kind: "unknown" };
    const at = code.indexOf("[", target.end);
    const types = `${indexTypeName(expr, decl, target, t, comprehensions)}, ${goTypeName(i)}`;
    return {
      kind: "error",
      detail: goIssue(
        expr,
        at < 0 ? n.start : at,
        `found no matching overload for '_[_]' applied to '(${types})'`,
      ),
    };
  }
  return undefined;
}

/** Compile-checks one expression. Returns a verdict the apiserver would agree with, or unknown. */
export function checkCel(expr: string, decl: CelDecl, ret: CelReturn): CelVerdict {
  const deep = recursionVerdict(expr);
  if (deep) return deep;
  const inner = nestedConditional(expr);
  if (inner >= 0) {
    // cel-go reports the first error it meets: cel-js's own, when it comes earlier, stands.
    let earlier = false;
    try {
      parse(expr);
    } catch (e) {
      earlier = (asLibError(e)?.range?.start ?? Infinity) < inner;
    }
    if (!earlier)
      return {
        kind: "error",
        detail: goIssue(expr, inner, "Syntax error: mismatched input '?' expecting ':'"),
      };
  }
  const ast = celAst(expr);
  // (A tree deeper than celAst walks, for the iterative walks below.)
  const tree = ast ?? deepAst(expr);
  const twoVar = twoVarComprehensions(tree);
  const comprehensions = [...twoVar, ...sortByComprehensions(tree)];
  // Parse errors cel-js does not make, reported before any type check, in the order of the text.
  const parseIssues = [
    ...twoVarMacroIssues(twoVar).map((i) => ({
      offset: goLocation(expr, i.at.start),
      message: i.message,
    })),
    ...intLiteralIssues(expr, tree),
    ...unaryMixIssues(expr, tree),
  ].sort((a, b) => a.offset - b.offset);
  if (parseIssues.length > 0) return { kind: "error", detail: compileIssues(expr, parseIssues) };
  let verdict = typeVerdict(expr, decl, ret, comprehensions);
  if (verdict.kind === "error") return verdict;
  // cel-go types `x.orValue(v)` on a dyn `x` as v's type (its overload is optional(T) → T, and a
  // dyn receiver binds T to v's type); cel-js keeps dyn, so its "ok" may be cel-go's overload or
  // return-type error (`x.orValue(1) + 'a'`). An error cel-js finds stands: cel-go's types are
  // narrower, never wider.
  if (verdict.kind === "ok" && /\.\s*orValue\s*\(/.test(maskStrings(expr)))
    verdict = { kind: "unknown" };
  if (verdict.kind === "ok" && mixesEmptyAggregate(tree)) verdict = { kind: "unknown" };
  // A macro over an empty literal: cel-go infers its element type from the body
  // (`[].filter(e, e != '')` is a list(string)), where cel-js keeps it open.
  if (verdict.kind === "ok" && EMPTY_MACRO_TARGET.test(maskStrings(expr)))
    verdict = { kind: "unknown" };
  // cel.bind is cel-go's ext.Bindings, which the apiserver's environment does not enable (cel-js
  // has it built in): the first issue is `cel` itself, where everything else type-checks.
  if (verdict.kind === "ok") {
    const code = maskStrings(expr);
    const at = [...code.matchAll(/\bcel\s*\.\s*bind\s*\(/g)].find(
      (m) => !code.slice(0, m.index).trimEnd().endsWith("."),
    )?.index;
    if (at !== undefined) {
      return {
        kind: "error",
        detail: goIssue(expr, at, "undeclared reference to 'cel' (in container '')"),
      };
    }
  }
  const typed =
    conditionalVerdict(expr, decl, comprehensions) ?? indexVerdict(expr, decl, comprehensions);
  if (typed?.kind === "error") return typed;
  // (An index into a scalar by a value this module cannot type: undecided, checks below still run.)
  if (typed) verdict = typed;
  // What follows fails the field whatever cel-go's type-check says (if that fails, it fails
  // first): so it is reported even where this module cannot decide the types.
  if (!ast) return verdict;
  try {
    // (Unless a comprehension's iteration variable hides `request`.)
    const hidden = comprehensions.some((c) => c.vars?.includes("request"));
    const undefinedField = hidden ? undefined : undefinedRequestField(ast, expr);
    // The checker's errors (cel-go lists them in the order of the text).
    const checker = [...(undefinedField ? [undefinedField] : []), ...callIssues(expr, ast)];
    if (checker.length > 0)
      return { kind: "error", detail: compileIssues(expr, byOffset(checker)) };
    // The AST validators' errors, once the expression type-checks.
    const issues = byOffset([...literalIssues(expr, ast), ...formatIssues(expr, ast)]);
    if (issues.length > 0) return { kind: "error", detail: compileIssues(expr, issues) };
    const folding = foldingError(expr, ast);
    if (folding) return { kind: "internal", detail: `program instantiation failed: ${folding}` };
  } catch {
    // (An expression this module cannot walk gets no verdict from it, never a crash.)
  }
  return verdict;
}

const EMPTY_MACRO_TARGET =
  /(\[\s*\]|\{\s*\})\s*\.\s*(all|exists|exists_one|map|filter|sortBy|transformList|transformMap|transformMapEntry)\s*\(/;

const isEmptyAggregate = (n: unknown): boolean =>
  isCelNode(n) &&
  (n.op === "list" || n.op === "map") &&
  Array.isArray(n.args) &&
  n.args.length === 0;

/**
 * Whether a list literal's elements, or a map literal's keys or values, join an empty `[]` or `{}`
 * with something else. cel-js lets an empty literal stand for any type there; cel-go's
 * homogeneous-literal check (ValidateHomogeneousAggregateLiterals) wants every element of exactly
 * one type, an empty literal's being list(dyn) or map(dyn, dyn) unless unification with the
 * others bound it (`[request.namespace, {}]` and `[{}, object]` fail, `[[], [1]]` does not).
 */
function mixesEmptyAggregate(tree: unknown): boolean {
  for (const n of celNodes(tree)) {
    if (!Array.isArray(n.args) || n.args.length < 2) continue;
    if (n.op === "list" && n.args.some(isEmptyAggregate)) return true;
    if (
      n.op === "map" &&
      n.args.some((e) => Array.isArray(e) && (isEmptyAggregate(e[0]) || isEmptyAggregate(e[1])))
    )
      return true;
  }
  return false;
}

/**
 * The type-checker's verdict: a compile error both compilers give, ok, or unknown. cel-js cannot
 * check two-variable comprehensions: where the expression has one, only an undeclared name outside
 * every comprehension is decided (cel-go reports it whatever the comprehension's types).
 */
function typeVerdict(
  expr: string,
  decl: CelDecl,
  ret: CelReturn,
  comprehensions: readonly TwoVarComprehension[],
): CelVerdict {
  const env = envFor(decl);
  // Relations as cel-go groups them (see leftFoldedRelations): checked in that text.
  const folded = leftFoldedRelations(expr, celAst(expr));
  let result: { valid: boolean; type?: string; error?: unknown };
  try {
    result = env.check(folded?.text ?? expr) as { valid: boolean; type?: string; error?: unknown };
  } catch (e) {
    result = { valid: false, error: e };
  }
  if (!result.valid) {
    const le = asLibError(result.error);
    if (!le) return { kind: "unknown" };
    if (comprehensions.length > 0) {
      const at = le.range ? (folded?.toOriginal(le.range.start) ?? le.range.start) : -1;
      const outside = comprehensions.every((c) => at < c.node.start || at >= c.node.end);
      if (le.code !== "unknown_variable" || !outside) return { kind: "unknown" };
    }
    return folded
      ? unfolded(libErrorVerdict(folded.text, le), folded, expr)
      : libErrorVerdict(expr, le);
  }
  if (comprehensions.length > 0) return { kind: "unknown" };
  return returnVerdict(expr, result.type ?? "dyn", ret, decl);
}

/**
 * A verdict on the folded text told of `expr`: each issue at its place there (the parentheses the
 * fold added are not in the text the apiserver shows).
 */
function unfolded(verdict: CelVerdict, folded: FoldedText, expr: string): CelVerdict {
  if (verdict.kind !== "error") return verdict;
  const starts = [0];
  for (let i = 0; i < folded.text.length; i++) if (folded.text[i] === "\n") starts.push(i + 1);
  const issues: Array<{ offset: number; message: string }> = [];
  for (const m of verdict.detail.matchAll(/ERROR: <input>:(\d+):(\d+): ([^\n]*)/g)) {
    const lineStart = starts[Number(m[1]) - 1] ?? 0;
    // Columns count code points.
    const lead = [...folded.text.slice(lineStart)].slice(0, Number(m[2]) - 1).join("");
    issues.push({ offset: folded.toOriginal(lineStart + lead.length), message: m[3] ?? "" });
  }
  return issues.length > 0 ? { kind: "error", detail: compileIssues(expr, issues) } : verdict;
}

/**
 * The type a variable's expression declares `variables.<name>` with, as the apiserver's
 * composition compiler does (CompileAndStoreVariable): the expression's output type, dyn when it
 * fails to compile; null where this module cannot tell what cel-go would say — a call cel-js may
 * type differently, a type with parameters it leaves open, a dyn that may come from
 * `namespaceObject`, `request` or `authorizer` (typed objects in cel-go), or a variable that is
 * itself null.
 */
export function declaredVariableType(expr: string, decl: CelDecl): string | null {
  const verdict = checkCel(expr, decl, "any");
  if (verdict.kind === "error") return "dyn";
  if (verdict.kind !== "ok" || !onlyKnownCalls(expr) || readsUntypedVariable(expr, decl))
    return null;
  let type: string | undefined;
  try {
    type = (envFor(decl).check(expr) as { type?: string }).type;
  } catch {
    return null;
  }
  if (type === undefined) return null;
  if (fullyConcrete(type)) return type;
  if (type === "dyn" && !/\b(namespaceObject|request|authorizer)\b/.test(maskStrings(expr)))
    return "dyn";
  return null;
}

/** Whether the expression reads a variable whose type this module cannot tell. */
function readsUntypedVariable(expr: string, decl: CelDecl): boolean {
  const vars = decl.variables;
  if (!vars) return false;
  for (const m of maskStrings(expr).matchAll(/\bvariables\s*\.\s*([A-Za-z_]\w*)/g))
    if (vars[m[1] ?? ""] === null) return true;
  return false;
}

/**
 * Whether the expression reads `namespaceObject` or `authorizer`, which cel-go types (a
 * Namespace's fields, the Authorizer's methods) where this module has only dyn: an "ok" or a
 * "got dyn" about them cannot be trusted.
 */
const readsTypedObject = (expr: string) =>
  /\b(namespaceObject|authorizer)\b/.test(maskStrings(expr));

/** Whether the checked type is what the field needs (ExpressionAccessor.ReturnTypes). */
function returnVerdict(expr: string, type: string, ret: CelReturn, decl: CelDecl): CelVerdict {
  if (readsTypedObject(expr)) return { kind: "unknown" };
  if (returnMatches(type, ret)) return { kind: "ok" };
  if (readsUntypedVariable(expr, decl)) return { kind: "unknown" };
  // cel-go also types these as dyn (oracle: `dyn(1)` and `object.x` give "got dyn").
  if (type === "dyn" && !onlyKnownCalls(expr)) return { kind: "unknown" };
  if (type !== "dyn" && !onlyKnownCalls(expr) && !concrete.test(type)) return { kind: "unknown" };
  return { kind: "error", detail: `${expected(ret)} but got ${goTypeName(type)}` };
}
