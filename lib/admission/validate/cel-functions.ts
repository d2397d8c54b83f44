/**
 * What cel-go decides about calls in the apiserver's CEL environment (k8s.io/apiserver
 * pkg/cel/environment/base.go at 1.37: ext.Strings version 2, the Kubernetes libraries) that
 * cel-js cannot tell, since it does not know that environment: a function the environment does
 * not declare, a string method declared for other receivers only, and the compile-time check of
 * string.format with a constant format and a list literal (ext's stringFormatValidator).
 */
import { celNodes, isCelNode, isCelUint, type CelNode } from "@/lib/admission/cel/cel-ast";

/**
 * Every function the environment declares, by name (namespaced ones in full), as cel-go lists them
 * (Env.Functions() of the base environment at 1.37, plus jsonpatch.escapeKey, which policies add).
 */
const FUNCTIONS: ReadonlySet<string> = new Set([
  "add",
  "allowed",
  "asApproximateFloat",
  "asInteger",
  "bool",
  "bytes",
  "cel.@mapInsert",
  "charAt",
  "check",
  "cidr",
  "compareTo",
  "contains",
  "containsCIDR",
  "containsIP",
  "distinct",
  "double",
  "duration",
  "dyn",
  "endsWith",
  "error",
  "errored",
  "family",
  "fieldSelector",
  "find",
  "findAll",
  "first",
  "flatten",
  "format",
  "format.byte",
  "format.date",
  "format.datetime",
  "format.dns1035Label",
  "format.dns1035LabelPrefix",
  "format.dns1123Label",
  "format.dns1123LabelPrefix",
  "format.dns1123Subdomain",
  "format.dns1123SubdomainPrefix",
  "format.labelValue",
  "format.named",
  "format.qualifiedName",
  "format.uri",
  "format.uuid",
  "getDate",
  "getDayOfMonth",
  "getDayOfWeek",
  "getDayOfYear",
  "getEscapedPath",
  "getFullYear",
  "getHost",
  "getHostname",
  "getHours",
  "getMilliseconds",
  "getMinutes",
  "getMonth",
  "getPort",
  "getQuery",
  "getScheme",
  "getSeconds",
  "group",
  "hasValue",
  "in",
  "includes",
  "indexOf",
  "int",
  "ip",
  "ip.isCanonical",
  "isCIDR",
  "isGlobalUnicast",
  "isGreaterThan",
  "isIP",
  "isInteger",
  "isLessThan",
  "isLinkLocalMulticast",
  "isLinkLocalUnicast",
  "isLoopback",
  "isQuantity",
  "isSemver",
  "isSorted",
  "isURL",
  "isUnspecified",
  "join",
  "labelSelector",
  "last",
  "lastIndexOf",
  "lists.range",
  "lowerAscii",
  "major",
  "masked",
  "matches",
  "max",
  "min",
  "minor",
  "name",
  "namespace",
  "optional.none",
  "optional.of",
  "optional.ofNonZeroValue",
  "optional.unwrap",
  "or",
  "orValue",
  "patch",
  "path",
  "prefixLength",
  "quantity",
  "reason",
  "replace",
  "resource",
  "reverse",
  "semver",
  "serviceAccount",
  "sets.contains",
  "sets.equivalent",
  "sets.intersects",
  "sign",
  "size",
  "slice",
  "sort",
  "split",
  "startsWith",
  "string",
  "strings.quote",
  "sub",
  "subresource",
  "substring",
  "sum",
  "timestamp",
  "trim",
  "type",
  "uint",
  "unwrapOpt",
  "upperAscii",
  "url",
  "validate",
  "value",
  "jsonpatch.escapeKey",
]);

/** Macros: expanded by the parser, never looked up as functions. */
const MACROS: ReadonlySet<string> = new Set([
  "has",
  "all",
  "exists",
  "exists_one",
  "existsOne",
  "map",
  "filter",
  "transformList",
  "transformMap",
  "transformMapEntry",
  "sortBy",
  "optMap",
  "optFlatMap",
]);

/** Methods the environment declares with no string (nor dyn, nor type-parameter) receiver. */
const NOT_FOR_STRINGS: ReadonlySet<string> = new Set([
  "add",
  "allowed",
  "asApproximateFloat",
  "asInteger",
  "check",
  "compareTo",
  "containsCIDR",
  "containsIP",
  "distinct",
  "error",
  "errored",
  "family",
  "fieldSelector",
  "first",
  "flatten",
  "getDate",
  "getDayOfMonth",
  "getDayOfWeek",
  "getDayOfYear",
  "getEscapedPath",
  "getFullYear",
  "getHost",
  "getHostname",
  "getHours",
  "getMilliseconds",
  "getMinutes",
  "getMonth",
  "getPort",
  "getQuery",
  "getScheme",
  "getSeconds",
  "group",
  "hasValue",
  "ip",
  "isGlobalUnicast",
  "isGreaterThan",
  "isInteger",
  "isLessThan",
  "isLinkLocalMulticast",
  "isLinkLocalUnicast",
  "isLoopback",
  "isSorted",
  "isUnspecified",
  "join",
  "labelSelector",
  "last",
  "major",
  "masked",
  "max",
  "min",
  "minor",
  "name",
  "namespace",
  "or",
  "orValue",
  "patch",
  "path",
  "prefixLength",
  "reason",
  "resource",
  "reverse",
  "serviceAccount",
  "slice",
  "sort",
  "sub",
  "subresource",
  "sum",
  "unwrapOpt",
  "validate",
  "value",
]);

/** The variables an expression may read: a selection rooted elsewhere is a namespace. */
const VARIABLES: ReadonlySet<string> = new Set([
  "object",
  "oldObject",
  "request",
  "params",
  "namespaceObject",
  "authorizer",
  "variables",
]);

export interface CallIssue {
  /** Where cel-go reports it: the call's "(", or the literal an error is about. */
  offset: number;
  message: string;
}

/** A call's "(": after the target of a method, after the name of a function. */
function openParen(expr: string, n: CelNode, target: unknown): number {
  const from = isCelNode(target) ? target.end : n.start;
  const at = expr.indexOf("(", from);
  return at >= 0 ? at : n.start;
}

/** `a.b.c` as a name, or undefined for anything but identifiers and selections. */
function qualifiedName(n: unknown): string | undefined {
  if (!isCelNode(n)) return undefined;
  if (n.op === "id" && typeof n.args === "string") return n.args;
  if (n.op === "." && Array.isArray(n.args)) {
    const [target, field] = n.args as [unknown, unknown];
    const head = qualifiedName(target);
    return head !== undefined && typeof field === "string" ? `${head}.${field}` : undefined;
  }
  return undefined;
}

/** A scalar literal's cel-go type name, or undefined for anything else. */
function scalarType(n: unknown): string | undefined {
  if (!isCelNode(n)) return undefined;
  if (n.op === "-_" && isCelNode(n.args)) {
    const t = scalarType(n.args);
    return t === "int" || t === "double" ? t : undefined;
  }
  if (n.op !== "value") return undefined;
  const v = n.args;
  if (typeof v === "string") return "string";
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "double";
  if (typeof v === "boolean") return "bool";
  if (v === null) return "null_type";
  if (v instanceof Uint8Array) return "bytes";
  if (isCelUint(v)) return "uint";
  return undefined;
}

/** The checker's errors about calls: undeclared functions, no overload for a string receiver. */
export function callIssues(expr: string, ast: CelNode): CallIssue[] {
  const out: CallIssue[] = [];
  const nodes = celNodes(ast);
  // Macros' iteration variables are variables too (`[1].map(x, x.f())`).
  const bound = new Set(VARIABLES);
  for (const n of nodes) {
    if (n.op !== "rcall" || !Array.isArray(n.args) || !MACROS.has(String(n.args[0]))) continue;
    const macroArgs: unknown = n.args[2];
    if (!Array.isArray(macroArgs)) continue;
    for (const v of macroArgs.slice(0, -1)) {
      const id = qualifiedName(v);
      if (id !== undefined && !id.includes(".")) bound.add(id);
    }
  }
  for (const n of nodes) {
    if ((n.op !== "call" && n.op !== "rcall") || !Array.isArray(n.args)) continue;
    const [name, a, b] = n.args as [unknown, unknown, unknown];
    if (typeof name !== "string" || MACROS.has(name)) continue;
    if (n.op === "call") {
      if (!name.includes(".") && !FUNCTIONS.has(name))
        out.push({
          offset: openParen(expr, n, undefined),
          message: `undeclared reference to '${name}' (in container '')`,
        });
      continue;
    }
    const args = Array.isArray(b) ? (b as unknown[]) : undefined;
    if (!args) continue;
    // cel-go first reads `x.y.f(...)` as the function `x.y.f`; a selection rooted anywhere but a
    // variable is a namespace (or an undeclared name), which is not decided here.
    const qualified = qualifiedName(a);
    if (qualified !== undefined) {
      if (FUNCTIONS.has(`${qualified}.${name}`)) continue;
      if (!bound.has(qualified.split(".")[0] ?? "")) continue;
    }
    if (!FUNCTIONS.has(name)) {
      out.push({
        offset: openParen(expr, n, a),
        message: `undeclared reference to '${name}' (in container '')`,
      });
      continue;
    }
    if (NOT_FOR_STRINGS.has(name) && scalarType(a) === "string") {
      const types = args.map(scalarType);
      if (types.every((t) => t !== undefined))
        out.push({
          offset: openParen(expr, n, a),
          message: `found no matching overload for '${name}' applied to 'string.(${types.join(", ")})'`,
        });
    }
  }
  return out;
}

/** A list literal's elements (cel-js: op "list", args the elements). */
function listElements(n: unknown): unknown[] | undefined {
  return isCelNode(n) && n.op === "list" && Array.isArray(n.args) ? n.args : undefined;
}

/** The cel-go type name of a format argument where the checker knows it; undefined: dyn. */
function formatArgType(n: unknown): string | undefined {
  const t = scalarType(n);
  if (t) return t;
  if (!isCelNode(n)) return undefined;
  if (n.op === "list") return "list";
  if (n.op === "map") return "map";
  return undefined;
}

const CLAUSE_TYPES: Record<string, { types: string[]; error: string }> = {
  d: { types: ["int", "uint"], error: "decimal clause can only be used on integers" },
  f: { types: ["double", "string"], error: "fixed-point clause can only be used on doubles" },
  e: { types: ["double", "string"], error: "scientific clause can only be used on doubles" },
  b: {
    types: ["int", "uint", "bool"],
    error: "only integers and bools can be formatted as binary",
  },
  x: {
    types: ["int", "uint", "string", "bytes"],
    error: "only integers, byte buffers, and strings can be formatted as hex",
  },
  o: { types: ["int", "uint"], error: "octal clause can only be used on integers" },
};
CLAUSE_TYPES.X = CLAUSE_TYPES.x!;

/**
 * ext's stringFormatValidator (strings version < 4) on `'<constant>'.format([<list literal>])`:
 * the format string's clauses (parseFormatString, which works on bytes), each against the type of
 * the element it reads, and the count. An error is placed at the element it is about, else at the
 * call.
 */
export function formatIssues(expr: string, ast: CelNode): CallIssue[] {
  const out: CallIssue[] = [];
  for (const n of celNodes(ast)) {
    if (n.op !== "rcall" || !Array.isArray(n.args)) continue;
    const [name, target, argList] = n.args as [unknown, unknown, unknown];
    if (name !== "format" || !Array.isArray(argList) || argList.length !== 1) continue;
    if (!isCelNode(target) || target.op !== "value" || typeof target.args !== "string") continue;
    const elements = listElements(argList[0]);
    if (!elements) continue;
    const issue = checkFormat(target.args, elements);
    if (issue) out.push({ offset: issue.at ?? openParen(expr, n, target), message: issue.message });
  }
  return out;
}

function checkFormat(
  format: string,
  elements: readonly unknown[],
): { at?: number; message: string } | undefined {
  const s = new TextEncoder().encode(format);
  const ch = (i: number) => String.fromCharCode(s[i] ?? 0);
  let i = 0;
  let arg = 0;
  let requested = 0;
  while (i < s.length) {
    if (ch(i) !== "%") {
      i++;
      continue;
    }
    if (i + 1 < s.length && ch(i + 1) === "%") {
      i += 2;
      continue;
    }
    requested++;
    if (i + 1 >= s.length) return { message: "unexpected end of string" };
    if (arg >= elements.length) return { message: `index ${arg} out of range` };
    // parseFormattingClause: an optional precision, then one byte.
    let j = i + 1;
    if (ch(j) === ".") {
      j++;
      let digits = "";
      for (;;) {
        if (j >= s.length)
          return {
            message:
              "could not parse formatting clause: error while parsing precision: could not find end of precision specifier",
          };
        if (!/[0-9]/.test(ch(j))) break;
        digits += ch(j);
        j++;
      }
      if (digits === "" || digits.length > 18)
        // strconv.Atoi: "" is a syntax error; a precision this long is past what is checked here.
        return digits === ""
          ? {
              message:
                'could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax',
            }
          : undefined;
    }
    const clause = ch(j);
    const element = elements[arg];
    const type = formatArgType(element);
    if (clause !== "s") {
      const rule = CLAUSE_TYPES[clause];
      if (!rule)
        return {
          message: `could not parse formatting clause: unrecognized formatting clause "${clause}"`,
        };
      if (type !== undefined && !rule.types.includes(type))
        return {
          at: isCelNode(element) ? element.start : undefined,
          message: `error during formatting: ${rule.error}, was given ${type}`,
        };
    }
    i = j + 1;
    arg++;
  }
  if (elements.length > requested)
    return {
      message: `too many arguments supplied to string.format (expected ${requested}, got ${elements.length})`,
    };
  return undefined;
}
