/**
 * Compile checks for CEL expressions, as far as @marcbachmann/cel-js can decide them. The
 * apiserver's environment has many Kubernetes libraries (quantity, url, ip, regex, sets, ...) that
 * this library does not know, so only verdicts both compilers share are reported: syntax errors,
 * undeclared top-level names, unknown fields of `request` / `variables`, and a result type that
 * is certainly wrong. Anything else is reported as "unknown" and produces no issue.
 */
import { Environment } from "@marcbachmann/cel-js";

/** What the expression must evaluate to (ExpressionAccessor.ReturnTypes). */
export type CelReturn = "bool" | "string" | "string-or-null" | "any";

/** Which optional variables the apiserver declares (plugincel.OptionalVariableDeclarations). */
export interface CelDecl {
  params: boolean;
  authorizer: boolean;
  /** Names of spec.variables when the policy uses composition; undefined when not declared. */
  variables?: string[];
}

export type CelVerdict = { kind: "ok" } | { kind: "error"; detail: string } | { kind: "unknown" };

// Namespaces of Kubernetes/cel-go extension functions that cel-js sees as unknown variables.
const extensionNamespaces = new Set([
  "math",
  "strings",
  "sets",
  "lists",
  "base64",
  "optional",
  "jsonpatch",
  "regex",
  "ext",
  "format",
  "cel",
  "google",
  "k8s",
  "kubernetes",
]);

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
    homogeneousAggregateLiterals: false,
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
  return t.replace(/</g, "(").replace(/>/g, ")");
}

function returnMatches(type: string, ret: CelReturn): boolean {
  if (ret === "any") return true;
  if (ret === "bool") return type === "bool";
  if (ret === "string") return type === "string";
  return type === "string" || type === "null_type" || type === "null";
}

function expected(ret: CelReturn): string {
  if (ret === "string-or-null") return "must evaluate to one of [string null_type]";
  return `must evaluate to ${ret}`;
}

// An expression that is only a selection from a dynamic variable is `dyn` in cel-go as well.
const plainDynSelection =
  /^\s*(object|oldObject|params|namespaceObject)(\s*(\.\s*[A-Za-z_]\w*|\[\s*("[^"]*"|'[^']*'|\d+)\s*\]))*\s*$/;

/** Compile-checks one expression. Returns a verdict the apiserver would agree with, or unknown. */
export function checkCel(expr: string, decl: CelDecl, ret: CelReturn): CelVerdict {
  const env = envFor(decl);
  let result: { valid: boolean; type?: string; error?: unknown };
  try {
    result = env.check(expr) as { valid: boolean; type?: string; error?: unknown };
  } catch (e) {
    const le = asLibError(e);
    if (!le || !le.code || messageConstruction.test(expr)) return { kind: "unknown" };
    if (
      le.code === "reserved_identifier" ||
      le.code.startsWith("unexpected") ||
      le.code.startsWith("expected") ||
      le.code.startsWith("invalid_escape") ||
      le.code === "unterminated_string"
    )
      return {
        kind: "error",
        detail: goIssue(expr, le.range?.start ?? 0, "Syntax error: " + le.message.split("\n")[0]),
      };
    return { kind: "unknown" };
  }
  if (!result.valid) {
    const le = asLibError(result.error);
    if (!le) return { kind: "unknown" };
    const off = le.range?.start ?? 0;
    if (le.code === "unknown_variable") {
      const name = /Unknown variable: ([\w.]+)/.exec(le.message)?.[1] ?? "";
      if (!name || extensionNamespaces.has(name)) return { kind: "unknown" };
      return {
        kind: "error",
        detail: goIssue(expr, off, `undeclared reference to '${name}' (in container '')`),
      };
    }
    if (le.code === "no_such_key") {
      const name = /No such key: (\w+)/.exec(le.message)?.[1] ?? "";
      return { kind: "error", detail: goIssue(expr, off, `undefined field '${name}'`) };
    }
    if (le.code === "invalid_macro_argument" && /has\(\)/.test(le.message))
      return { kind: "error", detail: goIssue(expr, off, "invalid argument to has() macro") };
    return { kind: "unknown" };
  }
  const type = result.type ?? "dyn";
  if (returnMatches(type, ret)) return { kind: "ok" };
  if (type === "dyn" && !plainDynSelection.test(expr)) return { kind: "unknown" };
  return { kind: "error", detail: `${expected(ret)} but got ${goTypeName(type)}` };
}
