/**
 * Random CEL expressions for the CEL compile oracle: literals, the request and object variables,
 * operators, conditionals, calls, macros, lists, maps and indexes, nested a few levels, so the
 * validator's compile verdicts meet shapes nobody wrote. Many do not type-check; that is the point.
 */
import type { Rand } from "./random-requests";

const LITERALS = [
  "1",
  "2",
  "0",
  "-1",
  "1u",
  "2u",
  "1.5",
  "0.0",
  "'a'",
  '"b"',
  "''",
  "true",
  "false",
  "null",
  "b'x'",
  "[]",
  "{}",
  "[1, 2]",
  "['a']",
  "{'k': 1}",
  "duration('1s')",
  "timestamp('2024-01-01T00:00:00Z')",
];
const IDENTS = [
  "object",
  "object.metadata.name",
  "object.spec.replicas",
  "object.metadata.labels",
  "oldObject",
  "request.operation",
  "request.name",
  "request.namespace",
  "request.userInfo.username",
  "request.userInfo.groups",
  "request.dryRun",
  "request.kind.kind",
  "request.foo",
  "params",
  "namespaceObject.metadata.name",
  "variables.x",
  "authorizer",
  "foo",
  "x",
];
const BINARY = ["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "in"];
const UNARY = ["!", "-"];
const GLOBAL = ["size", "string", "int", "uint", "double", "bool", "bytes", "type", "dyn", "has"];
const MEMBER = [
  "size()",
  "startsWith('a')",
  "endsWith('a')",
  "contains('a')",
  "matches('a+')",
  "matches('[')",
  "lowerAscii()",
  "split(',')",
  "join(',')",
  "indexOf('a')",
  "getSeconds()",
  "exists(e, e == 1)",
  "all(e, e > 0)",
  "map(e, e + 1)",
  "filter(e, e != '')",
  "exists_one(e, true)",
  "isSorted()",
  "sum()",
  "min()",
  "hasValue()",
  "orValue(1)",
];

export class RandomCel {
  constructor(private readonly rand: Rand) {}

  expr(depth = 0): string {
    const r = this.rand;
    const leaf = depth >= 3 || r.next() < 0.25;
    if (leaf) return r.next() < 0.5 ? r.pick(LITERALS) : r.pick(IDENTS);
    const k = r.next();
    if (k < 0.35) return `${this.expr(depth + 1)} ${r.pick(BINARY)} ${this.expr(depth + 1)}`;
    if (k < 0.45) return `${r.pick(UNARY)}${this.paren(depth)}`;
    if (k < 0.55) return `${this.expr(depth + 1)} ? ${this.paren(depth)} : ${this.expr(depth + 1)}`;
    if (k < 0.65) {
      const f = r.pick(GLOBAL);
      return f === "has"
        ? `has(${r.pick(IDENTS.filter((i) => i.includes(".")))})`
        : `${f}(${this.expr(depth + 1)})`;
    }
    if (k < 0.78) return `${this.paren(depth)}.${r.pick(MEMBER)}`;
    if (k < 0.86) return `[${this.expr(depth + 1)}, ${this.expr(depth + 1)}]`;
    if (k < 0.92) return `{${this.expr(depth + 1)}: ${this.expr(depth + 1)}}`;
    return `${this.paren(depth)}[${this.expr(depth + 1)}]`;
  }

  /** A sub-expression, parenthesised when it is not a single term. */
  private paren(depth: number): string {
    const e = this.expr(depth + 1);
    return /^[\w.'"[\]{}(),:\s-]*$/.test(e) && !/\s/.test(e) ? e : `(${e})`;
  }

  /** An expression most often compared, so that more of them are bool. */
  validation(): string {
    const r = this.rand;
    const e = this.expr();
    const k = r.next();
    if (k < 0.3) return e;
    if (k < 0.6) return `${this.paren(0)} == ${this.expr(1)}`;
    return `(${e}) ${r.pick(["==", "!=", "<", "in"])} ${this.expr(1)}`;
  }
}
