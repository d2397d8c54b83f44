/**
 * Compile-time checks the apiserver's CEL environment makes after type-checking and cel-js does
 * not (k8s.io/apiserver pkg/cel/environment base.go, cel-go v0.29.2):
 * - its AST validators (ValidateDurationLiterals, ValidateTimestampLiterals, ValidateRegexLiterals):
 *   a literal argument that does not parse is "invalid <function> argument";
 * - cel.OptOptimize, which evaluates a type conversion of a constant while building the program:
 *   `int('x')` fails as "program instantiation failed: type conversion error from 'string' to 'int'";
 * - the typed `request` variable: `request.userInfo.?nope` is an undefined field.
 * And its parser's checks of literals cel-js reads differently: ints past int64 (which cel-js
 * reads at any size), and the wording and place of its errors for numbers out of range and for
 * string escapes its lexer does not know (which cel-js refuses in words of its own).
 * Every verdict here is one cel-go certainly gives; anything uncertain gives none.
 */
import { Environment } from "@marcbachmann/cel-js";
import { celNodes, isCelNode, isCelUint, type CelNode } from "@/lib/admission/cel/cel-ast";
import { goFormatDouble } from "@/lib/admission/cel/cel-go-compat";
import { translateRe2 } from "@/lib/admission/cel/re2";
import { parseRFC3339 } from "./go-time";

const parser = new Environment({ enableOptionalTypes: true });

/**
 * Deeper trees are not analysed here (the apiserver's own parser stops at a depth of 250): every
 * walk below is then bounded, and none recurses on a hostile expression's depth.
 */
const MAX_DEPTH = 200;

/** The cel-js syntax tree of an expression that parses and is not too deep, else undefined. */
export function celAst(expr: string): CelNode | undefined {
  try {
    const ast = (parser.parse(expr) as unknown as { ast: unknown }).ast;
    return isCelNode(ast) && !deeperThan(ast, MAX_DEPTH) ? ast : undefined;
  } catch {
    return undefined;
  }
}

function deeperThan(root: CelNode, max: number): boolean {
  const stack: Array<[unknown, number]> = [[root, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (Array.isArray(v)) for (const c of v) stack.push([c, depth]);
    else if (isCelNode(v)) {
      if (depth > max) return true;
      stack.push([v.args, depth + 1]);
    }
  }
  return false;
}

/** A call's name and arguments (`call` and, with the target first, `rcall`). */
function callParts(n: CelNode): { name: string; args: unknown[]; member: boolean } | undefined {
  if ((n.op !== "call" && n.op !== "rcall") || !Array.isArray(n.args)) return undefined;
  const [name, a, b] = n.args as [unknown, unknown, unknown];
  if (typeof name !== "string") return undefined;
  if (n.op === "call") return Array.isArray(a) ? { name, args: a, member: false } : undefined;
  return Array.isArray(b) ? { name, args: b, member: true } : undefined;
}

type Literal =
  | { kind: "string"; value: string }
  | { kind: "int"; value: bigint }
  | { kind: "uint"; value: bigint }
  | { kind: "double"; value: number }
  | { kind: "bool"; value: boolean }
  | { kind: "bytes"; value: Uint8Array }
  | { kind: "null" }
  | { kind: "other" };

/**
 * A literal as cel-go's parser sees it: a value, or a minus sign straight before a number (cel-go
 * reads `-1` as one literal; cel-js as a negation).
 */
function literalOf(expr: string, n: unknown): Literal | undefined {
  if (!isCelNode(n)) return undefined;
  if (n.op === "-_" && isCelNode(n.args) && n.args.op === "value") {
    if (expr.slice(n.pos + 1, n.args.start).trim() !== "") return undefined;
    const inner = literalOf(expr, n.args);
    if (inner?.kind === "int") return { kind: "int", value: -inner.value };
    if (inner?.kind === "double") return { kind: "double", value: -inner.value };
    return undefined;
  }
  if (n.op !== "value") return undefined;
  const v = n.args;
  if (typeof v === "string") return { kind: "string", value: v };
  if (typeof v === "bigint") return { kind: "int", value: v };
  if (typeof v === "number") return { kind: "double", value: v };
  if (typeof v === "boolean") return { kind: "bool", value: v };
  if (isCelUint(v)) return { kind: "uint", value: BigInt(v.valueOf()) };
  if (v instanceof Uint8Array) return { kind: "bytes", value: v };
  if (v === null) return { kind: "null" };
  return { kind: "other" };
}

const MAX_INT = 2n ** 63n - 1n;
const MIN_INT = -(2n ** 63n);
const MAX_UINT = 2n ** 64n - 1n;

/** Go's time.ParseDuration. */
export function goParseDurationOk(s: string): boolean {
  let rest = s;
  if (rest.startsWith("-") || rest.startsWith("+")) rest = rest.slice(1);
  if (rest === "0") return true;
  if (rest === "") return false;
  const units: Record<string, number> = {
    ns: 1,
    us: 1e3,
    µs: 1e3,
    μs: 1e3,
    ms: 1e6,
    s: 1e9,
    m: 60e9,
    h: 3600e9,
  };
  let total = 0;
  while (rest !== "") {
    const m = /^(\d*)(?:\.(\d*))?([^\d.]*)/.exec(rest);
    if (!m || (m[1] === "" && (m[2] === undefined || m[2] === ""))) return false;
    const unit = units[m[3] ?? ""];
    if (unit === undefined) return false;
    total += Number(`${m[1] || "0"}.${m[2] ?? ""}0`) * unit;
    rest = rest.slice(m[0].length);
  }
  return total <= 2 ** 63;
}

// cel-go's Timestamp range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z, in Unix seconds.
const minUnixTime = -62135596800;
const maxUnixTime = 253402300799;

/** cel-go's string-to-timestamp conversion: Go's time.Parse(time.RFC3339, s), then the range. */
export function goParseRfc3339Ok(s: string): boolean {
  const t = parseRFC3339(s);
  return !("error" in t) && t.unix >= minUnixTime && t.unix <= maxUnixTime;
}

/** Whether an RE2 pattern is certainly refused by Go's regexp.Compile. */
const regexRefused = (pattern: string) => translateRe2(pattern).kind === "invalid";

export interface LiteralIssue {
  offset: number;
  message: string;
}

/**
 * The AST validators' issues: a literal that duration(), timestamp() or matches() cannot read.
 * (cel-go's matches validator reads argument 0 of the call: for `s.matches(p)` the pattern, for
 * the global `matches(s, p)` the subject.)
 */
export function literalIssues(expr: string, ast: CelNode): LiteralIssue[] {
  const out: LiteralIssue[] = [];
  for (const n of celNodes(ast)) {
    const c = callParts(n);
    if (!c) continue;
    const arg = c.args[0];
    const lit = literalOf(expr, arg);
    if (!lit || !isCelNode(arg)) continue;
    const at = arg.op === "-_" ? arg.pos : arg.start;
    if (c.name === "duration" && !c.member && lit.kind === "string") {
      if (!goParseDurationOk(lit.value))
        out.push({ offset: at, message: "invalid duration argument" });
    } else if (c.name === "timestamp" && !c.member && lit.kind === "string") {
      if (!goParseRfc3339Ok(lit.value))
        out.push({ offset: at, message: "invalid timestamp argument" });
    } else if (c.name === "matches" && lit.kind === "string") {
      if (regexRefused(lit.value)) out.push({ offset: at, message: "invalid matches argument" });
    }
  }
  return out.sort((a, b) => a.offset - b.offset);
}

/**
 * Where cel-go's grammar puts a sign on the number literal that starts at `start`: a lone unary
 * minus straight before it (`-1`, `- 1`, `!-1`, `1 - -1`) is part of the literal (`literal:
 * sign=MINUS? tok=NUM_INT`); a minus after an operand is a subtraction, and in a run of unary
 * minus signs (`--1`, `- -1`) every one negates. The offset of the sign, or undefined.
 */
export function literalSign(expr: string, start: number): number | undefined {
  const minuses: number[] = [];
  let j = start - 1;
  for (;;) {
    while (j >= 0 && /\s/.test(expr[j] as string)) j--;
    if (expr[j] !== "-") break;
    minuses.push(j--);
  }
  if (minuses.length === 0) return undefined;
  const before = j >= 0 ? (expr[j] as string) : "";
  const keywordIn = expr.slice(j - 1, j + 1) === "in" && !/\w/.test(expr[j - 2] ?? "");
  const afterOperand = /[\w)\]}'"`]/.test(before) && !keywordIn;
  return minuses.length - (afterOperand ? 1 : 0) === 1 ? minuses[0] : undefined;
}

/**
 * `!` and `-` mixed in one run of prefix operators (`!-x`, `-!x`), which cel-go's grammar does
 * not parse (`unary: '!'+ member | '-'+ member`) and cel-js does: reported at the token after the
 * inner operator, with the input ANTLR names. `!-1` parses (the minus belongs to the literal).
 */
export function unaryMixIssues(expr: string, ast: unknown): LiteralIssue[] {
  const out: LiteralIssue[] = [];
  for (const n of celNodes(ast)) {
    if ((n.op !== "!_" && n.op !== "-_") || !isCelNode(n.args)) continue;
    const inner = n.args;
    if (inner.op !== (n.op === "!_" ? "-_" : "!_")) continue;
    // Only with nothing but space between the two (`!(-x)` parses).
    if (expr.slice(n.pos + 1, inner.pos).trim() !== "") continue;
    const operand = inner.args;
    if (
      isCelNode(operand) &&
      operand.op === "value" &&
      literalSign(expr, operand.start) === inner.pos
    )
      continue;
    // `-!x`: no alternative takes the `!` after a `-` (`-` could still begin a literal).
    if (n.op === "-_") {
      out.push({
        offset: inner.pos,
        message: `Syntax error: no viable alternative at input '${expr.slice(n.pos, inner.pos + 1)}'`,
      });
      continue;
    }
    // `!-x`: the `-` could begin a negative literal, and the token after it is no number.
    const token = /^\s*(?:[A-Za-z_]\w*|\d[\w.]*|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\S)/.exec(
      expr.slice(inner.pos + 1),
    )?.[0];
    if (token === undefined) continue;
    out.push({
      offset: inner.pos + 1 + token.length - token.trimStart().length,
      message: `Syntax error: no viable alternative at input '${expr.slice(inner.pos, inner.pos + 1 + token.length)}'`,
    });
  }
  return out;
}

/**
 * Int literals cel-go's parser refuses (VisitInt: strconv.ParseInt with the sign it folds in):
 * out of int64's range. cel-js reads any size. `-9223372036854775808` is valid, as one literal;
 * `-(9223372036854775808)` and `--9223372036854775808` are not.
 */
export function intLiteralIssues(expr: string, ast: unknown): LiteralIssue[] {
  const out: LiteralIssue[] = [];
  for (const n of celNodes(ast)) {
    if (n.op !== "value" || typeof n.args !== "bigint" || n.args <= MAX_INT) continue;
    const sign = literalSign(expr, n.start);
    if (sign !== undefined && -n.args >= MIN_INT) continue;
    out.push({ offset: sign ?? n.start, message: "invalid int literal" });
  }
  return out.sort((a, b) => a.offset - b.offset);
}

/** A string or bytes literal's place in the text: its prefix, its (first) quote, its kind. */
interface StringToken {
  start: number;
  quote: number;
  triple: boolean;
  bytes: boolean;
  raw: boolean;
  /** Where the closing quote starts (the text's end, if none). */
  bodyEnd: number;
}

/** The string or bytes literal that holds offset `at` (CEL's STRING and BYTES tokens). */
function stringTokenAt(expr: string, at: number): StringToken | undefined {
  let i = 0;
  while (i < expr.length && i <= at) {
    const c = expr[i] as string;
    if (c === "/" && expr[i + 1] === "/") {
      // A comment, to the end of its line.
      const nl = expr.indexOf("\n", i);
      i = nl < 0 ? expr.length : nl;
      continue;
    }
    if (c !== "'" && c !== '"') {
      i++;
      continue;
    }
    // The prefix: r, b, or b then r, standing alone (`xb'…'` is a name, then a string).
    const prefix = /(?:^|[^\w])([bB]?[rR]?)$/.exec(expr.slice(Math.max(0, i - 3), i))?.[1] ?? "";
    const raw = /[rR]/.test(prefix);
    const triple = expr.startsWith(c.repeat(3), i);
    const close = triple ? c.repeat(3) : c;
    let j = i + close.length;
    while (j < expr.length && !expr.startsWith(close, j)) j += !raw && expr[j] === "\\" ? 2 : 1;
    const end = Math.min(j + close.length, expr.length);
    if (at >= i && at < end)
      return {
        start: i - prefix.length,
        quote: i,
        triple,
        bytes: /[bB]/.test(prefix),
        raw,
        bodyEnd: Math.min(j, expr.length),
      };
    i = end;
  }
  return undefined;
}

const isHex = (c: string | undefined) => c !== undefined && /^[0-9A-Fa-f]$/.test(c);

/**
 * How CEL's lexer reads the escape at `backslash` (ESC_SEQ in CEL.g4): where it ends, or, when it
 * is none of CEL's escapes, the character the lexer fails at.
 */
function lexEscape(expr: string, backslash: number): { end: number } | { failsAt: number } {
  const next = expr[backslash + 1];
  let digits: (c: string | undefined) => boolean = isHex;
  let count = 0;
  if (next === "x" || next === "X") count = 2;
  else if (next === "u") count = 4;
  else if (next === "U") count = 8;
  else if (next !== undefined && next >= "0" && next <= "3") {
    digits = (c) => c !== undefined && c >= "0" && c <= "7";
    count = 2;
  } else if (next !== undefined && "abfnrtv\"'\\?`".includes(next)) return { end: backslash + 2 };
  else return { failsAt: backslash + 1 };
  for (let k = backslash + 2; k < backslash + 2 + count; k++)
    if (!digits(expr[k])) return { failsAt: k };
  return { end: backslash + 2 + count };
}

/**
 * The issue cel-go's parser reports for a string or bytes literal with an escape cel-js refused
 * (at `backslash`): its lexer's token recognition error where an escape of the literal is none of
 * CEL's (the text from the quote to the character the lexer stopped at), else unescape's error
 * (parser/unescape.go) at the literal: a surrogate or a code point past U+10FFFF, or \u in bytes.
 * Null where cel-go reads the literal (raw bytes, `br'\\q'`, which cel-js unescapes).
 */
function escapeIssue(expr: string, backslash: number): LiteralIssue | null | undefined {
  const tok = stringTokenAt(expr, backslash);
  if (!tok || expr[backslash] !== "\\") return undefined;
  if (tok.raw) return null;
  for (let k = tok.quote + (tok.triple ? 3 : 1); k < tok.bodyEnd; k++) {
    if (expr[k] !== "\\") continue;
    const lexed = lexEscape(expr, k);
    if ("end" in lexed) {
      k = lexed.end - 1;
      continue;
    }
    // (A triple-quoted literal: the lexer first takes its two quotes as an empty string.)
    const from = tok.triple ? tok.quote + 2 : tok.quote;
    const text = expr.slice(from, lexed.failsAt + 1);
    return { offset: from, message: `Syntax error: token recognition error at: '${text}'` };
  }
  const next = expr[backslash + 1];
  if (next === "u" || next === "U") {
    if (tok.bytes) return { offset: tok.start, message: "unable to unescape string" };
    const cp = parseInt(expr.slice(backslash + 2, backslash + (next === "u" ? 6 : 10)), 16);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      return { offset: tok.start, message: "invalid unicode code point" };
  }
  return null;
}

/**
 * cel-go's parse error for a literal cel-js refused to read (its error `code` at `offset`): a
 * number out of range ("invalid uint literal", "invalid double literal"; at the sign folded into
 * the literal, if any) or a string escape (see escapeIssue). Null where cel-go reads the literal
 * after all (raw bytes); undefined for an error that is not about a literal.
 */
export function literalSyntaxIssue(
  expr: string,
  code: string,
  offset: number,
): LiteralIssue | null | undefined {
  switch (code) {
    case "invalid_integer":
    case "invalid_hex_integer": {
      const uint = /^(?:0x[0-9A-Fa-f]+|\d+)[uU]/.test(expr.slice(offset));
      return { offset, message: `invalid ${uint ? "uint" : "int"} literal` };
    }
    case "invalid_number":
      return { offset: literalSign(expr, offset) ?? offset, message: "invalid double literal" };
    case "invalid_hex_escape":
    case "invalid_octal_escape":
    case "octal_escape_out_of_range":
    case "invalid_escape_sequence":
    case "invalid_unicode_escape":
    case "invalid_unicode_surrogate":
    case "bytes_unicode_escape":
      return escapeIssue(expr, offset);
    case "unexpected_character":
      // Raw bytes (`br'…'`), which cel-js does not read at all.
      return (expr[offset] === "'" || expr[offset] === '"') && stringTokenAt(expr, offset)?.raw
        ? null
        : undefined;
    default:
      return undefined;
  }
}

const GO_FLOAT =
  /^[+-]?(?:(?:\d+(?:_\d+)*)?\.?\d+(?:_\d+)*(?:[eE][+-]?\d+)?|\d+\.(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;

/** What a conversion of a constant gives: a constant again, or cel-go's error. */
type Folded = { ok: Literal } | { error: string } | undefined;

function convert(name: string, v: Literal): Folded {
  const typeErr = (from: string) => ({
    error: `type conversion error from '${from}' to '${name}'`,
  });
  switch (`${name}(${v.kind})`) {
    case "string(bytes)":
      try {
        const value = new TextDecoder("utf-8", { fatal: true }).decode(
          (v as { value: Uint8Array }).value,
        );
        return { ok: { kind: "string", value } };
      } catch {
        return { error: "invalid UTF-8 in bytes, cannot convert to string" };
      }
    // No such conversion: the checker refuses them on typed arguments; through a dyn (`bool(dyn(1))`)
    // they reach the planner, which fails the program.
    case "int(bool)":
    case "int(bytes)":
    case "int(null)":
    case "uint(bool)":
    case "uint(bytes)":
    case "uint(null)":
    case "double(bool)":
    case "double(bytes)":
    case "double(null)":
    case "bool(int)":
    case "bool(uint)":
    case "bool(double)":
    case "bool(bytes)":
    case "bool(null)":
    case "string(null)":
      return { error: `no such overload: ${name}(${v.kind === "null" ? "null_type" : v.kind})` };
    case "int(string)": {
      const s = (v as { value: string }).value;
      if (!/^[+-]?\d+$/.test(s)) return typeErr("string");
      const n = BigInt(s);
      return n > MAX_INT || n < MIN_INT ? typeErr("string") : { ok: { kind: "int", value: n } };
    }
    case "uint(string)": {
      const s = (v as { value: string }).value;
      if (!/^\d+$/.test(s)) return typeErr("string");
      const n = BigInt(s);
      return n > MAX_UINT ? typeErr("string") : { ok: { kind: "uint", value: n } };
    }
    case "double(string)": {
      const s = (v as { value: string }).value;
      // Decimal forms only; hexadecimal floats and underscores are left undecided.
      if (/^[+-]?0[xX]|_/.test(s)) return undefined;
      if (!GO_FLOAT.test(s)) return typeErr("string");
      const f = Number(s.replace(/^([+-]?)inf(inity)?$/i, "$1Infinity").replace(/^nan$/i, "NaN"));
      // ParseFloat fails (ErrRange) for a finite number too large.
      if (!Number.isFinite(f) && !/inf|nan/i.test(s)) return typeErr("string");
      return { ok: { kind: "double", value: f } };
    }
    case "bool(string)": {
      const s = (v as { value: string }).value;
      if (["1", "t", "T", "TRUE", "true", "True"].includes(s))
        return { ok: { kind: "bool", value: true } };
      if (["0", "f", "F", "FALSE", "false", "False"].includes(s))
        return { ok: { kind: "bool", value: false } };
      return typeErr("string");
    }
    case "int(double)": {
      const f = (v as { value: number }).value;
      if (!Number.isFinite(f) || f <= -(2 ** 63) || f >= 2 ** 63)
        return { error: "integer overflow" };
      return { ok: { kind: "int", value: BigInt(Math.trunc(f)) } };
    }
    case "int(uint)": {
      const n = (v as { value: bigint }).value;
      return n > MAX_INT ? { error: "integer overflow" } : { ok: { kind: "int", value: n } };
    }
    case "uint(int)": {
      const n = (v as { value: bigint }).value;
      return n < 0n ? { error: "unsigned integer overflow" } : { ok: { kind: "uint", value: n } };
    }
    case "uint(double)": {
      const f = (v as { value: number }).value;
      if (!Number.isFinite(f) || f < 0 || f >= 2 ** 64)
        return { error: "unsigned integer overflow" };
      return { ok: { kind: "uint", value: BigInt(Math.trunc(f)) } };
    }
    case "string(string)":
    case "int(int)":
    case "uint(uint)":
    case "double(double)":
    case "bool(bool)":
      return { ok: v };
    case "string(int)":
    case "string(uint)":
      return { ok: { kind: "string", value: String((v as { value: bigint }).value) } };
    case "string(double)":
      return { ok: { kind: "string", value: goFormatDouble((v as { value: number }).value) } };
    case "string(bool)":
      return { ok: { kind: "string", value: String((v as { value: boolean }).value) } };
    case "double(int)":
    case "double(uint)":
      return { ok: { kind: "double", value: Number((v as { value: bigint }).value) } };
    default:
      return undefined;
  }
}

const CONVERSIONS = new Set(["int", "uint", "double", "bool", "string"]);

/** The Go types cel-go's type conversions return, where they are not a valid qualifier. */
const CONVERTED: Record<string, string> = {
  timestamp: "types.Timestamp",
  duration: "types.Duration",
  bytes: "types.Bytes",
  type: "*types.Type",
};

/**
 * For an index whose key cel-go's planner holds as a constant (a literal; a list or map of
 * constants, which OptOptimize builds; a type conversion of a constant, which it evaluates):
 * the Go type of that value when it is not one a qualifier takes (string, int, uint, bool,
 * double), as interpreter.newQualifier names it (`invalid qualifier type: types.Null`); ""
 * for a constant it takes; undefined for a key that is not constant.
 */
function constantQualifier(expr: string, n: unknown): string | undefined {
  if (!isCelNode(n)) return undefined;
  const lit = literalOf(expr, n);
  if (lit && lit.kind !== "other" && lit.kind !== "bytes" && lit.kind !== "null") return "";
  if (n.op === "value") {
    if (n.args === null) return "types.Null";
    return n.args instanceof Uint8Array ? "types.Bytes" : undefined;
  }
  if (n.op === "list" && Array.isArray(n.args))
    return n.args.every((e) => constantQualifier(expr, e) !== undefined)
      ? "*types.baseList"
      : undefined;
  if (n.op === "map" && Array.isArray(n.args))
    return n.args.every(
      (e) => Array.isArray(e) && e.every((kv) => constantQualifier(expr, kv) !== undefined),
    )
      ? "*types.baseMap"
      : undefined;
  const c = callParts(n);
  if (!c || c.member || c.args.length !== 1) return undefined;
  const inner = constantQualifier(expr, c.args[0]);
  if (inner === undefined) return undefined;
  if (c.name === "dyn") return inner;
  if (CONVERSIONS.has(c.name)) return "";
  return CONVERTED[c.name];
}

/**
 * The error cel-go's OptOptimize raises while building the program: the first conversion of a
 * constant that fails, in evaluation order (arguments before the call). Only conversions of
 * strings, numbers, booleans, bytes and null are followed (dyn() is transparent); any other node
 * ends the constant.
 */
export function foldingError(expr: string, ast: CelNode): string | undefined {
  let error: string | undefined;
  const fold = (n: unknown): Literal | undefined => {
    if (error !== undefined || !isCelNode(n)) return undefined;
    const lit = literalOf(expr, n);
    if (lit) return lit;
    const c = callParts(n);
    if (c?.name === "matches" || (c?.member && (c.name === "find" || c.name === "findAll"))) {
      // cel-go compiles a constant pattern while building the program (the regex optimizer, and
      // the Kubernetes regex library's find and findAll): the member form's argument 0, the
      // global form's argument 1.
      const pattern = literalOf(expr, c.args[c.member ? 0 : 1]);
      if (pattern?.kind === "string") {
        const r = translateRe2(pattern.value);
        if (r.kind === "invalid") {
          error = `error parsing regexp: ${r.reason}`;
          return undefined;
        }
      }
    }
    // dyn() of a constant is that constant to the planner.
    if (c && !c.member && c.name === "dyn" && c.args.length === 1) return fold(c.args[0]);
    if (c && !c.member && CONVERSIONS.has(c.name) && c.args.length === 1) {
      const inner = fold(c.args[0]);
      if (error !== undefined || !inner) return undefined;
      const r = convert(c.name, inner);
      if (r && "error" in r) {
        error = r.error;
        return undefined;
      }
      return r?.ok;
    }
    visitChildren(n.args);
    if (error === undefined && (n.op === "[]" || n.op === "[?]") && Array.isArray(n.args)) {
      // Planned after its operands: an index by a constant makes a qualifier of its value.
      const bad = constantQualifier(expr, n.args[1]);
      if (bad) error = `invalid qualifier type: ${bad}`;
    }
    return undefined;
  };
  const visitChildren = (v: unknown) => {
    if (Array.isArray(v)) for (const c of v) visitChildren(c);
    else if (isCelNode(v)) fold(v);
  };
  fold(ast);
  return error;
}

/**
 * The `request` variable's type (kubernetes.AdmissionRequest) as the validator declares it: a
 * nested object is a message type, a string names a field's type.
 */
export const REQUEST_SCHEMA = {
  uid: "string",
  kind: { group: "string", version: "string", kind: "string" },
  resource: { group: "string", version: "string", resource: "string" },
  subResource: "string",
  requestKind: { group: "string", version: "string", kind: "string" },
  requestResource: { group: "string", version: "string", resource: "string" },
  requestSubResource: "string",
  name: "string",
  namespace: "string",
  operation: "string",
  userInfo: {
    username: "string",
    uid: "string",
    groups: "list<string>",
    extra: "map<string, list<string>>",
  },
  dryRun: "bool",
  options: "dyn",
} as const;

type MessageSchema = { readonly [field: string]: string | MessageSchema };

/** The message type a select chain rooted at `request` reaches, if any. */
function requestType(n: unknown): MessageSchema | undefined {
  if (!isCelNode(n)) return undefined;
  if (n.op === "id") return n.args === "request" ? REQUEST_SCHEMA : undefined;
  if ((n.op !== "." && n.op !== ".?") || !Array.isArray(n.args)) return undefined;
  const [target, field] = n.args as [unknown, unknown];
  const t = requestType(target);
  if (t === undefined || typeof field !== "string" || !Object.hasOwn(t, field)) return undefined;
  const sub = t[field];
  return typeof sub === "object" ? sub : undefined;
}

/**
 * `request….?field` or `has(request.….field)` naming no field of its type: cel-go's "undefined
 * field" (at the dot, or at has's parenthesis; `expr` is the expression's text).
 */
export function undefinedRequestField(ast: CelNode, expr = ""): LiteralIssue | undefined {
  for (const n of celNodes(ast)) {
    // has(request.foo): cel-go's macro tests the field where the call's parenthesis is.
    if (n.op === "call" && Array.isArray(n.args) && n.args[0] === "has") {
      const [sel] = (n.args[1] ?? []) as unknown[];
      if (!isCelNode(sel) || sel.op !== "." || !Array.isArray(sel.args)) continue;
      const [target, field] = sel.args as [unknown, unknown];
      const t = requestType(target);
      if (t !== undefined && typeof field === "string" && !Object.hasOwn(t, field)) {
        const paren = expr.indexOf("(", n.start);
        return { offset: paren >= 0 ? paren : n.start + 3, message: `undefined field '${field}'` };
      }
      continue;
    }
    if (n.op !== ".?" || !Array.isArray(n.args)) continue;
    const [target, field] = n.args as [unknown, unknown];
    const t = requestType(target);
    if (t === undefined || typeof field !== "string") continue;
    if (!Object.hasOwn(t, field))
      return { offset: n.pos - 2, message: `undefined field '${field}'` };
  }
  return undefined;
}
