/**
 * Compile checks for CEL expressions, as far as @marcbachmann/cel-js can decide them. The
 * apiserver's environment has many Kubernetes libraries (quantity, url, ip, regex, sets, ...) that
 * this library does not know, so only verdicts both compilers share are reported: syntax errors,
 * undeclared top-level names, unknown fields of `request` / `variables`, and a result type that
 * is certainly wrong. Anything else is reported as "unknown" and produces no issue.
 */
import { Environment } from "@marcbachmann/cel-js";

/** What the expression must evaluate to (ExpressionAccessor.ReturnTypes). */
export type CelReturn = "bool" | "string" | "string-or-null" | "any" | "jsonpatch" | "object";

/** Which optional variables the apiserver declares (plugincel.OptionalVariableDeclarations). */
export interface CelDecl {
  params: boolean;
  authorizer: boolean;
  /** Names of spec.variables when the policy uses composition; undefined when not declared. */
  variables?: string[];
}

export type CelVerdict = { kind: "ok" } | { kind: "error"; detail: string } | { kind: "unknown" };

// Namespaces of Kubernetes/cel-go extension functions that cel-js sees as unknown variables.
// (cel-go ext.Sets, OptionalTypes, ext.Lists, ext.Strings v2 and library.Format in base.go).
// math.* and base64.* are not in the apiserver's environment: oracle 1.37.2 rejects them as
// undeclared references, so they are reported like any unknown name.
const extensionNamespaces = new Set(["sets", "optional", "lists", "strings", "format"]);

const requestSchema = {
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
  env.registerVariable({ name: "request", schema: requestSchema });
  if (decl.params) env.registerVariable("params", "dyn");
  if (decl.authorizer) {
    env.registerVariable("authorizer", "dyn");
    env.registerVariable("authorizer.requestResource", "dyn");
  }
  if (decl.variables) {
    const schema: Record<string, string> = {};
    for (const v of decl.variables) schema[v] = "dyn";
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

/** cel-go's issue text: `ERROR: <input>:L:C: msg` plus the source line and a caret. */
function goIssue(expr: string, offset: number, msg: string): string {
  const before = expr.slice(0, offset);
  const line = before.split("\n").length;
  const lineStart = before.lastIndexOf("\n") + 1;
  const col = offset - lineStart;
  const srcLine = expr.split("\n")[line - 1] ?? "";
  return `compilation failed: ERROR: <input>:${line}:${col + 1}: ${msg}\n | ${srcLine}\n | ${" ".repeat(col)}^`;
}

// Message construction (`Object{...}`, `JSONPatch{...}`) is valid CEL that cel-js cannot parse.
const messageConstruction = /[A-Za-z_][\w.]*\s*\{/;

function goTypeName(t: string): string {
  // cel-js names unresolved type parameters (`list<T>` for `[]`); cel-go prints them as dyn.
  return t
    .replace(/\b[A-Z]\b/g, "dyn")
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
]);

function onlyKnownCalls(expr: string): boolean {
  const code = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, "''");
  // \b: a match starts only at a word's first character, so a long word costs linear time.
  for (const m of code.matchAll(/\b([A-Za-z_]\w*)\s*\(/g))
    if (!knownCalls.has(m[1] ?? "")) return false;
  return true;
}

function libErrorVerdict(expr: string, le: CelLibError): CelVerdict {
  const off = le.range?.start ?? 0;
  const code = le.code ?? "";
  if (syntaxCodes.test(code)) {
    if (messageConstruction.test(expr)) return { kind: "unknown" };
    return {
      kind: "error",
      detail: goIssue(expr, off, "Syntax error: " + (le.message.split("\n")[0] ?? "")),
    };
  }
  if (code === "unknown_variable") {
    const name = /Unknown variable: ([\w.]+)/.exec(le.message)?.[1] ?? "";
    if (!name || extensionNamespaces.has(name.split(".")[0] ?? "")) return { kind: "unknown" };
    return {
      kind: "error",
      detail: goIssue(expr, off, `undeclared reference to '${name}' (in container '')`),
    };
  }
  if (code === "no_such_key") {
    const name = /No such key: (\w+)/.exec(le.message)?.[1] ?? "";
    return { kind: "error", detail: goIssue(expr, off, `undefined field '${name}'`) };
  }
  if (code === "invalid_macro_argument" && /has\(\)/.test(le.message))
    return { kind: "error", detail: goIssue(expr, off, "invalid argument to has() macro") };
  if (code.startsWith("heterogeneous_")) {
    const m = /expected type '([^']+)' but found '([^']+)'/.exec(le.message);
    if (!m || m[1]!.includes("dyn") || m[2]!.includes("dyn")) return { kind: "unknown" };
    return {
      kind: "error",
      detail: goIssue(
        expr,
        off,
        `expected type '${goTypeName(m[1]!)}' but found '${goTypeName(m[2]!)}'`,
      ),
    };
  }
  if (code === "no_such_overload") {
    // Operators on two concrete primitive types: the apiserver adds no operator overloads, except
    // cross-type numeric comparisons (CrossTypeNumericComparisons), which stay undecided here.
    const m = /no such overload: (\S+) (\S+) (\S+)$/.exec(le.message.split("\n")[0] ?? "");
    if (!m) return { kind: "unknown" };
    const [, left, op, right] = m as unknown as [string, string, string, string];
    const goOp = goOperator[op];
    if (!goOp || !concrete.test(left) || !concrete.test(right)) return { kind: "unknown" };
    if (
      numeric.test(left) &&
      numeric.test(right) &&
      op !== "+" &&
      op !== "-" &&
      op !== "*" &&
      op !== "/" &&
      op !== "%"
    )
      return { kind: "unknown" };
    return {
      kind: "error",
      detail: goIssue(
        expr,
        off,
        `found no matching overload for '${goOp}' applied to '(${left}, ${right})'`,
      ),
    };
  }
  return { kind: "unknown" };
}

/** Compile-checks one expression. Returns a verdict the apiserver would agree with, or unknown. */
export function checkCel(expr: string, decl: CelDecl, ret: CelReturn): CelVerdict {
  const env = envFor(decl);
  let result: { valid: boolean; type?: string; error?: unknown };
  try {
    result = env.check(expr) as { valid: boolean; type?: string; error?: unknown };
  } catch (e) {
    const le = asLibError(e);
    return le ? libErrorVerdict(expr, le) : { kind: "unknown" };
  }
  if (!result.valid) {
    const le = asLibError(result.error);
    return le ? libErrorVerdict(expr, le) : { kind: "unknown" };
  }
  const type = result.type ?? "dyn";
  if (returnMatches(type, ret)) return { kind: "ok" };
  // cel-go also types these as dyn (oracle: `dyn(1)` and `object.x` give "got dyn").
  if (type === "dyn" && !onlyKnownCalls(expr)) return { kind: "unknown" };
  if (type !== "dyn" && !onlyKnownCalls(expr) && !concrete.test(type)) return { kind: "unknown" };
  return { kind: "error", detail: `${expected(ret)} but got ${goTypeName(type)}` };
}
