/**
 * Where @marcbachmann/cel-js computes a built-in differently from the apiserver's cel-go, the
 * matchConditions evaluator calls these instead (matching/condition-evaluator.ts renames the calls
 * in the parsed expression). cel-go's strings are sequences of code points and its doubles print
 * as Go's %g; cel-js indexes UTF-16 code units and prints doubles as JavaScript does. Each
 * difference was found by lib/admission/cel/cel.oracle.int.test.ts, which runs the same
 * expressions through the real apiserver.
 */
import { isCelUint } from "./cel-ast";
import { re2Matches } from "./re2";

/** A runtime error cel-go raises too (its code is one the evaluator reports as an error). */
function outOfRange(message: string): Error {
  return Object.assign(new Error(message), { code: "index_out_of_bounds" });
}

/** An argument this module cannot convert as cel-go does: the evaluator does not guess. */
function unsupported(message: string): Error {
  return Object.assign(new Error(message), { code: "unsupported_conversion" });
}

const toInt = (v: bigint): number => Number(v);

/** Go's strconv.FormatFloat(f, 'g', -1, 64), which cel-go's string(double) uses. */
export function goFormatDouble(f: number): string {
  if (Number.isNaN(f)) return "NaN";
  if (f === Infinity) return "+Inf";
  if (f === -Infinity) return "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  // Shortest digits that read back as f, as both languages choose them.
  const [mantissa = "", expText = "0"] = f.toExponential().split("e");
  const exp = Number(expText);
  // Go's %g with the shortest precision switches to an exponent from 1e+06 and below 1e-04.
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? "-" : "+";
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  return String(f);
}

/** cel-go's string(x) for the values a Kubernetes object or literal gives. */
export function goString(v: unknown): string {
  if (typeof v === "string") return v;
  if (typeof v === "number") return goFormatDouble(v);
  if (typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (v instanceof Uint8Array) {
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(v);
    } catch {
      throw unsupported("string(bytes) of invalid UTF-8");
    }
  }
  // uint values (cel-js wraps them) print their number; timestamps and durations are not modelled.
  if (isCelUint(v)) return String(v.valueOf());
  throw unsupported("string() of this type is not modelled");
}

const points = (s: string): string[] => Array.from(s);

/** ext.Strings `substring` (substr, substrRange): code-point indices. */
export function goSubstring(s: string, start: bigint, end?: bigint): string {
  const cps = points(s);
  const a = toInt(start);
  if (end !== undefined && start > end)
    throw outOfRange(`invalid substring range. start: ${start}, end: ${end}`);
  if (a < 0 || a > cps.length) throw outOfRange(`index out of range: ${start}`);
  const b = end === undefined ? cps.length : toInt(end);
  if (b < 0 || b > cps.length) throw outOfRange(`index out of range: ${end}`);
  return cps.slice(a, b).join("");
}

function foundAt(cps: string[], sub: string[], i: number): boolean {
  for (let j = 0; j < sub.length; j++) if (cps[i + j] !== sub[j]) return false;
  return true;
}

/**
 * ext.Strings `indexOf` (indexOfOffset) as cel-go v0.29 has it: the code-point index of `sub` at
 * or after `offset`; an empty `sub` is found at the offset clamped to the string's length.
 */
export function goIndexOf(s: string, sub: string, offset = 0n): bigint {
  const off = toInt(offset);
  if (off < 0) throw outOfRange(`index out of range: ${off}`);
  const cps = points(s);
  if (sub === "") return off > cps.length ? BigInt(cps.length) : offset;
  const subs = points(sub);
  if (off >= cps.length) return -1n;
  for (let i = off; i < cps.length - (subs.length - 1); i++)
    if (foundAt(cps, subs, i)) return BigInt(i);
  return -1n;
}

/**
 * cel-go v0.26's indexOfOffset (1.35, 1.36): an empty `sub` is found at the offset as given,
 * before the offset is checked, so past the end and even negative; otherwise as v0.29.
 */
export function goIndexOfV026(s: string, sub: string, offset = 0n): bigint {
  if (sub === "") return offset;
  return goIndexOf(s, sub, offset);
}

/** ext.Strings `lastIndexOf` (lastIndexOfOffset, v0.29): the last `sub` at or before `offset`. */
export function goLastIndexOf(s: string, sub: string, offset?: bigint): bigint {
  const cps = points(s);
  if (offset === undefined) {
    if (sub === "") return BigInt(cps.length);
    // Go compares byte lengths here.
    if (Buffer.byteLength(s) < Buffer.byteLength(sub)) return -1n;
    offset = BigInt(cps.length - 1);
  }
  let off = toInt(offset);
  if (off < 0) throw outOfRange(`index out of range: ${off}`);
  if (sub === "") return off > cps.length ? BigInt(cps.length) : offset;
  const subs = points(sub);
  if (off >= cps.length) return -1n;
  if (off > cps.length - subs.length) off = cps.length - subs.length;
  for (let i = off; i >= 0; i--) if (foundAt(cps, subs, i)) return BigInt(i);
  return -1n;
}

/**
 * cel-go v0.26's lastIndexOf (1.35, 1.36): with an offset, an empty `sub` is found at the offset
 * as given (past the end, or negative); otherwise as v0.29.
 */
export function goLastIndexOfV026(s: string, sub: string, offset?: bigint): bigint {
  if (sub === "" && offset !== undefined) return offset;
  return goLastIndexOf(s, sub, offset);
}

/** Go's unicode.IsSpace, which strings.TrimSpace (ext.Strings `trim`) uses. */
const isGoSpace = (c: string): boolean =>
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/.test(c);

/** ext.Strings `trim`: strings.TrimSpace. */
export function goTrim(s: string): string {
  const cps = points(s);
  let a = 0;
  let b = cps.length;
  while (a < b && isGoSpace(cps[a] as string)) a++;
  while (b > a && isGoSpace(cps[b - 1] as string)) b--;
  return cps.slice(a, b).join("");
}

/** ext.Strings `split`: strings.SplitN; an empty separator splits between code points. */
export function goSplit(s: string, sep: string, limit?: bigint): string[] {
  const n = limit === undefined ? -1 : toInt(limit);
  if (n === 0) return [];
  const parts = sep === "" ? points(s) : s.split(sep);
  if (n < 0 || parts.length <= n) return parts;
  if (sep === "") return [...parts.slice(0, n - 1), parts.slice(n - 1).join("")];
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

/** Member functions renamed in parsed expressions, to overloads registered for these (cel-go v0.29). */
const MEMBER_RENAMES: Readonly<Record<string, string>> = {
  matches: "re2Matches",
  substring: "goSubstring",
  indexOf: "goIndexOf",
  lastIndexOf: "goLastIndexOf",
  trim: "goTrim",
  split: "goSplit",
};

/** The cel-go releases the modelled minors link (MinorBehaviour.celGo). */
export type CelGoVersion = "v0.26.0" | "v0.29.2";

/** MEMBER_RENAMES for `version`: v0.26's indexOf and lastIndexOf where they differ. */
export function memberRenames(version: CelGoVersion): Readonly<Record<string, string>> {
  if (version === "v0.29.2") return MEMBER_RENAMES;
  return { ...MEMBER_RENAMES, indexOf: "goIndexOfV026", lastIndexOf: "goLastIndexOfV026" };
}

/** Global functions renamed likewise. */
export const GLOBAL_RENAMES: Readonly<Record<string, string>> = {
  string: "goString",
};

/** The overloads the renamed calls resolve to, as cel-js signatures. */
export const OVERLOADS: ReadonlyArray<[string, (...args: never[]) => unknown]> = [
  ["string.re2Matches(string): bool", re2Matches],
  ["matches(string, string): bool", re2Matches],
  ["string.goSubstring(int): string", goSubstring],
  ["string.goSubstring(int, int): string", goSubstring],
  ["string.goIndexOf(string): int", goIndexOf],
  ["string.goIndexOf(string, int): int", goIndexOf],
  ["string.goLastIndexOf(string): int", goLastIndexOf],
  ["string.goLastIndexOf(string, int): int", goLastIndexOf],
  ["string.goIndexOfV026(string): int", goIndexOfV026],
  ["string.goIndexOfV026(string, int): int", goIndexOfV026],
  ["string.goLastIndexOfV026(string): int", goLastIndexOfV026],
  ["string.goLastIndexOfV026(string, int): int", goLastIndexOfV026],
  ["string.goTrim(): string", goTrim],
  ["string.goSplit(string): list<string>", goSplit],
  ["string.goSplit(string, int): list<string>", goSplit],
  ["goString(dyn): string", goString],
];
