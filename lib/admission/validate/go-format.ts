import type { JsonValue } from "./json";
import { isObject } from "./json";
import { goIsPrint } from "./go-isprint";

/** Go's strconv.Quote: a double-quoted string with Go escape sequences. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case "\\":
        out += "\\\\";
        continue;
      case "\n":
        out += "\\n";
        continue;
      case "\r":
        out += "\\r";
        continue;
      case "\t":
        out += "\\t";
        continue;
      case "\x07":
        out += "\\a";
        continue;
      case "\b":
        out += "\\b";
        continue;
      case "\f":
        out += "\\f";
        continue;
      case "\v":
        out += "\\v";
        continue;
    }
    if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
    // A lone surrogate cannot come from Go: its JSON decoder reads one as U+FFFD (printable).
    else if (c >= 0xd800 && c <= 0xdfff) out += "\ufffd";
    else if (goIsPrint(c)) out += ch;
    else if (c < 0x10000) out += "\\u" + c.toString(16).padStart(4, "0");
    else out += "\\U" + c.toString(16).padStart(8, "0");
  }
  return out + '"';
}

/** Go's encoding/json string encoding (HTML-safe escaping, as json.Marshal does). */
function goJsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (c < 0x20 || ch === "<" || ch === ">" || ch === "&" || c === 0x2028 || c === 0x2029)
      out += "\\u" + c.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

/**
 * Go's json.Marshal of a struct: fields in the given (declaration) order; an undefined value is an
 * omitted field (a nil pointer with omitempty).
 */
export function goJsonStruct(fields: readonly [string, JsonValue | undefined][]): string {
  const parts: string[] = [];
  for (const [k, v] of fields) if (v !== undefined) parts.push(goJsonString(k) + ":" + goJson(v));
  return "{" + parts.join(",") + "}";
}

/** Go's json.Marshal of a decoded JSON value (map keys sorted, as Go sorts map keys). */
export function goJson(v: JsonValue): string {
  if (v === null) return "null";
  if (typeof v === "string") return goJsonString(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return "[" + v.map(goJson).join(",") + "]";
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return "{" + keys.map((k) => goJsonString(k) + ":" + goJson(v[k]!)).join(",") + "}";
  }
  return "null";
}
