/**
 * What a YAML scalar becomes on the apiserver's YAML path: sigs.k8s.io/yaml decodes YAML with
 * go-yaml v2 into interface{} values, then marshals them as JSON. go-yaml v2 resolves YAML 1.1
 * plain scalars (`yes`/`on`/`y` booleans, `~` null, `0x1F`/`0o17`/`017`/`0b11` ints, `1_000`)
 * but not all of them: a timestamp-looking scalar stays the string that was written (not a
 * time), and base-60 (`12:30`) is a string. Pure; the port of go.yaml.in/yaml/v2 resolve.go and
 * decode.go's scalar, and of sigs.k8s.io/yaml's map key conversion.
 */

/** A scalar as go-yaml v2 decodes it into interface{}. */
export type GoScalar =
  | { kind: "null" }
  | { kind: "bool"; value: boolean }
  /** int, int64 or, above int64, uint64 (`unsigned`). */
  | { kind: "int"; value: bigint; unsigned: boolean }
  | { kind: "float"; value: number }
  | { kind: "str"; value: string };

/** go-yaml's or encoding/json's refusal of a document, with their message. */
export class GoYamlError extends Error {}

const prefix = "tag:yaml.org,2002:";
const STR = prefix + "str";
const BOOL = prefix + "bool";
const INT = prefix + "int";
const FLOAT = prefix + "float";
const NULL = prefix + "null";
const TIMESTAMP = prefix + "timestamp";
const BINARY = prefix + "binary";
const resolvable = new Set(["", STR, BOOL, INT, FLOAT, NULL, TIMESTAMP]);

const shortTag = (t: string) => (t.startsWith(prefix) ? "!!" + t.slice(prefix.length) : t);

type Resolved = { tag: string; value: GoScalar };

const fixed = new Map<string, Resolved>();
const put = (value: GoScalar, tag: string, words: string[]) => {
  for (const w of words) fixed.set(w, { tag, value });
};
put({ kind: "bool", value: true }, BOOL, ["y", "Y", "yes", "Yes", "YES"]);
put({ kind: "bool", value: true }, BOOL, ["true", "True", "TRUE", "on", "On", "ON"]);
put({ kind: "bool", value: false }, BOOL, ["n", "N", "no", "No", "NO"]);
put({ kind: "bool", value: false }, BOOL, ["false", "False", "FALSE", "off", "Off", "OFF"]);
put({ kind: "null" }, NULL, ["", "~", "null", "Null", "NULL"]);
put({ kind: "float", value: NaN }, FLOAT, [".nan", ".NaN", ".NAN"]);
put({ kind: "float", value: Infinity }, FLOAT, [".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"]);
put({ kind: "float", value: -Infinity }, FLOAT, ["-.inf", "-.Inf", "-.INF"]);

/** go-yaml's resolveTable: what the first character says the scalar might be. */
function hint(s: string): "S" | "D" | "M" | "." | "N" | "" {
  if (s === "") return "N";
  const c = s[0]!;
  if (c === "+" || c === "-") return "S";
  if (c >= "0" && c <= "9") return "D";
  if ("yYnNtTfFoO~".includes(c)) return "M";
  if (c === ".") return ".";
  return "";
}

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;
const uint64Max = 2n ** 64n - 1n;

/** strconv.ParseInt(s, 0, 64), then ParseUint(s, 0, 64): Go's integer literal syntax. */
function goInt(s: string): GoScalar | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return undefined;
  const sign = m[1] ?? "";
  const digits = m[2] ?? "";
  const body = /^0[0-7]+$/.test(digits) ? "0o" + digits.slice(1) : digits;
  const v = sign === "-" ? -BigInt(body) : BigInt(body);
  if (v >= int64Min && v <= int64Max) return { kind: "int", value: v, unsigned: false };
  if (sign === "" && v <= uint64Max) return { kind: "int", value: v, unsigned: true };
  return undefined;
}

const yamlStyleFloat = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

/** strconv.ParseFloat(s, 64) where it succeeds; an out-of-range value is an error there. */
function goFloat(s: string): GoScalar | undefined {
  const v = Number(s);
  return Number.isFinite(v) ? { kind: "float", value: v } : undefined;
}

const daysIn = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

/**
 * go-yaml's parseTimestamp: time.Parse with "2006-1-2T15:4:5.999999999Z07:00" (t or T),
 * "2006-1-2 15:4:5.999999999" or "2006-1-2".
 */
export function isGoYamlTimestamp(s: string): boolean {
  const m =
    /^(\d{4})-(\d{1,2})-(\d{1,2})(?:([Tt ])(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(Z|[+-]\d{2}:\d{2})?)?$/.exec(
      s,
    );
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo)) return false;
  if (m[4] === undefined) return true;
  // With a T the zone is required; with a space there is none.
  if ((m[4] === " ") !== (m[8] === undefined)) return false;
  const [h, mi, sec] = [Number(m[5]), Number(m[6]), Number(m[7])];
  const zone = /^[+-](\d{2}):(\d{2})$/.exec(m[8] ?? "");
  if (zone && (Number(zone[1]) > 24 || Number(zone[2]) > 60)) return false;
  return h < 24 && mi < 60 && sec < 60;
}

/** go-yaml v2's resolve(tag, in): the tag it resolved to and the value. */
function resolve(tag: string, text: string): Resolved {
  const h = hint(text);
  if (h !== "" && tag !== STR) {
    const f = fixed.get(text);
    if (f) return f;
    if (h === "." && /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(text)) {
      const v = goFloat(text);
      if (v) return { tag: FLOAT, value: v };
    }
    if (h === "D" || h === "S") {
      // Only a plain scalar or an explicit !!timestamp is tried as a timestamp.
      if ((tag === "" || tag === TIMESTAMP) && isGoYamlTimestamp(text))
        return { tag: TIMESTAMP, value: { kind: "str", value: text } };
      const plain = text.replaceAll("_", "");
      const i = goInt(plain);
      if (i) return { tag: INT, value: i };
      if (yamlStyleFloat.test(plain)) {
        const v = goFloat(plain);
        if (v) return { tag: FLOAT, value: v };
      }
    }
  }
  return { tag: STR, value: { kind: "str", value: text } };
}

const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** base64.StdEncoding.DecodeString (which skips \r and \n), as a Go string marshalled to JSON. */
function decodeBinary(text: string): string {
  const b = text.replace(/[\r\n]/g, "");
  if (!base64.test(b)) throw new GoYamlError("yaml: !!binary value contains invalid base64 data");
  const bytes = Uint8Array.from(atob(b), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/**
 * A scalar as go-yaml v2 decodes it into interface{}. `tag` is its explicit tag in long form
 * ("" when none), `plain` whether it is written without quotes or block indicator.
 * @throws GoYamlError where go-yaml refuses it (`!!int foo`, bad `!!binary`)
 */
export function goScalar(text: string, tag: string, plain: boolean): GoScalar {
  // decoder.scalar: a quoted or block scalar without a tag is a string, unresolved.
  if (tag === "" && !plain) return { kind: "str", value: text };
  if (tag === BINARY) return { kind: "str", value: decodeBinary(text) };
  // Any other tag go-yaml does not resolve (`!`, `!foo`, !!merge, !!seq ...) leaves the text.
  if (!resolvable.has(tag)) return { kind: "str", value: text };
  const r = resolve(tag, text);
  if (tag === "" || tag === STR || tag === r.tag) return r.value;
  if (tag === FLOAT && r.value.kind === "int" && !r.value.unsigned)
    return { kind: "float", value: Number(r.value.value) };
  throw new GoYamlError(`yaml: cannot decode ${shortTag(r.tag)} \`${text}\` as a ${shortTag(tag)}`);
}

/**
 * A decoded scalar as encoding/json marshals it. An integer beyond ±2^53 loses precision here
 * (Go keeps every digit).
 * @throws GoYamlError for NaN and infinities, which JSON cannot carry
 */
export function goScalarJson(s: GoScalar): string | number | boolean | null {
  switch (s.kind) {
    case "null":
      return null;
    case "bool":
    case "str":
      return s.value;
    case "int":
      return Number(s.value);
    case "float":
      if (Number.isFinite(s.value)) return s.value;
      throw new GoYamlError(
        `json: unsupported value: ${Number.isNaN(s.value) ? "NaN" : s.value > 0 ? "+Inf" : "-Inf"}`,
      );
  }
}

/** strconv.FormatFloat(f, 'g', -1, 32): the shortest float32 digits, %e beyond 1e21 or below 1e-4. */
export function formatGoFloat32(x: number): string {
  const f = Math.fround(x);
  if (Number.isNaN(f)) return "NaN";
  if (!Number.isFinite(f)) return f > 0 ? "+Inf" : "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const neg = f < 0;
  const a = Math.abs(f);
  let digits = "";
  let exp = 0;
  for (let p = 1; p <= 9; p++) {
    const e = a.toExponential(p - 1);
    if (Math.fround(Number(e)) !== a && p < 9) continue;
    const [mant, ex] = e.split("e") as [string, string];
    digits = mant.replace(".", "").replace(/0+$/, "") || "0";
    exp = Number(ex);
    break;
  }
  const nd = digits.length;
  const dp = exp + 1;
  let out: string;
  if (exp < -4 || exp >= 6) {
    const es = Math.abs(exp) < 10 ? "0" + Math.abs(exp) : String(Math.abs(exp));
    out = digits[0] + (nd > 1 ? "." + digits.slice(1) : "") + "e" + (exp < 0 ? "-" : "+") + es;
  } else if (dp <= 0) {
    out = "0." + "0".repeat(-dp) + digits;
  } else if (dp >= nd) {
    out = digits + "0".repeat(dp - nd);
  } else {
    out = digits.slice(0, dp) + "." + digits.slice(dp);
  }
  return neg ? "-" + out : out;
}

/**
 * A decoded scalar as a JSON object key (sigs.k8s.io/yaml's convertToJSONableObject): ints in
 * decimal, floats as float32 %g (`.inf`, `-.inf`, `.nan`), booleans as true/false.
 * @throws GoYamlError for a null key and an unsigned 64-bit one, which it refuses
 */
export function goMapKey(s: GoScalar): string {
  switch (s.kind) {
    case "str":
      return s.value;
    case "bool":
      return String(s.value);
    case "int":
      if (s.unsigned)
        throw new GoYamlError(
          `unsupported map key of type: uint64, key: 0x${s.value.toString(16)}`,
        );
      return s.value.toString();
    case "float": {
      const g = formatGoFloat32(s.value);
      return g === "+Inf" ? ".inf" : g === "-Inf" ? "-.inf" : g === "NaN" ? ".nan" : g;
    }
    case "null":
      throw new GoYamlError("unsupported map key of type: %!s(<nil>), key: <nil>");
  }
}
