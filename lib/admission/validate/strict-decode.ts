/**
 * What the apiserver's decoder rejects with fieldValidation=Strict, before any validation runs
 * (sigs.k8s.io/json, as used by k8s.io/apimachinery's JSON serializer):
 * - unknown fields: `unknown field "webhooks[0].foo"` (names are case-sensitive);
 * - duplicate fields: `duplicate field "metadata.name"`;
 * - wrong JSON types: Go's first UnmarshalTypeError only, e.g.
 *   `json: cannot unmarshal string into Go struct field ValidatingWebhook.webhooks.timeoutSeconds of type int32`.
 * - a time it cannot parse: metav1.Time's UnmarshalJSON returns time.Parse's error, e.g.
 *   `parsing time "2024-02-30T00:00:00Z": day out of range`, or for a value that is not a JSON
 *   string `json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp
 *   of type string`. Such an error stops the decoder at once, so it wins over any type error before
 *   it and over every strict error.
 * The apiserver answers 400 BadRequest with
 * `<Kind> in version "<v>" cannot be handled as a <Kind>: strict decoding error: <e1>, <e2>` (or the
 * type error) and no status.details.causes, so `field` here is our own pointer for the editor: the
 * strict path in field.Path syntax. A type error hides the strict errors (the decoder returns it
 * first); strict errors are capped at 100 and deduplicated like sigs.k8s.io/json does.
 * Uncertain: a YAML body is converted to JSON by sigs.k8s.io/yaml first, whose duplicate-key error
 * text (`key "x" already set in map`) differs; we report the JSON form for both.
 */
import { rfc3339ParseError } from "./go-time";
import type { Schema } from "./schema";
import type { JsonValue } from "./json";
import { isObject } from "./json";

type DecodeErrorKind = "unknown" | "duplicate" | "type";

/** One decoding problem, located by its path segments. */
export interface DecodeError {
  kind: DecodeErrorKind;
  /** Path in field.Path syntax (`webhooks[0].foo`). */
  field: string;
  segments: (string | number)[];
  message: string;
}

function pathString(segs: (string | number)[]): string {
  let out = "";
  for (const s of segs) out += typeof s === "number" ? `[${s}]` : out ? "." + s : s;
  return out;
}

function jsonKind(v: JsonValue): string {
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "number";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "array";
  return "object";
}

function goTypeOf(sc: Schema): string {
  switch (sc.t) {
    case "string":
      return sc.go;
    case "int":
      return sc.go;
    case "bool":
      return "bool";
    case "bytes":
      return "[]uint8";
    case "time":
      // metav1.Time's UnmarshalJSON decodes the value into a Go string first.
      return "string";
    case "any":
      return "interface {}";
    case "list":
    case "map":
      return sc.go;
    case "struct":
      return "v1." + sc.go;
  }
}

const b64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Go's base64.StdEncoding.Decode error offset, or -1 when the text decodes (\r and \n are skipped). */
function base64ErrorOffset(text: string): number {
  const cleaned = text.replace(/[\r\n]/g, "");
  if (b64.test(cleaned)) return -1;
  for (let i = 0; i < cleaned.length; i++) {
    if (!/[A-Za-z0-9+/=]/.test(cleaned[i]!)) return i;
    if (cleaned[i] === "=") {
      const q = i % 4;
      if (q < 2 || i + (4 - q) !== cleaned.length || (q === 2 && cleaned[i + 1] !== "="))
        return q < 2 ? i : i;
      return -1;
    }
  }
  return Math.floor(cleaned.length / 4) * 4;
}

/** Strict-decodes `value` against `schema`; returns the errors the apiserver's decoder reports. */
export function strictDecode(
  value: JsonValue,
  schema: Schema,
  duplicates: (string | number)[][] = [],
): DecodeError[] {
  let typeError: DecodeError | undefined;
  // An error returned by a field's UnmarshalJSON, which ends decoding.
  let fatal: DecodeError | undefined;
  const strict: DecodeError[] = [];
  const seen = new Set<string>();
  const addStrict = (kind: DecodeErrorKind, segs: (string | number)[]) => {
    const field = pathString(segs);
    const key = kind + "\u0000" + field;
    if (seen.has(key) || strict.length >= 100) return;
    seen.add(key);
    strict.push({ kind, field, segments: segs, message: `${kind} field ${JSON.stringify(field)}` });
  };
  const setType = (segs: (string | number)[], message: string) => {
    typeError ??= { kind: "type", field: pathString(segs), segments: segs, message };
  };
  const setFatal = (segs: (string | number)[], message: string) => {
    fatal ??= { kind: "type", field: pathString(segs), segments: segs, message };
  };

  // structName and names: Go's errorContext (innermost struct, JSON field names without indexes).
  const walk = (
    v: JsonValue,
    sc: Schema,
    segs: (string | number)[],
    structName: string,
    names: string[],
  ): void => {
    if (v === null) return;
    const typeMessage = (what: string) =>
      structName
        ? `json: cannot unmarshal ${what} into Go struct field ${structName}.${names.join(".")} of type ${goTypeOf(sc)}`
        : `json: cannot unmarshal ${what} into Go value of type ${goTypeOf(sc)}`;
    const typeErr = (what: string) => setType(segs, typeMessage(what));
    switch (sc.t) {
      case "any":
        return;
      case "string":
        if (typeof v !== "string") typeErr(jsonKind(v));
        return;
      case "bool":
        if (typeof v !== "boolean") typeErr(jsonKind(v));
        return;
      case "int": {
        if (typeof v !== "number") return typeErr(jsonKind(v));
        const max = sc.go === "int32" ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER;
        if (!Number.isInteger(v) || v > max || v < -max - 1) typeErr(`number ${v}`);
        return;
      }
      case "bytes":
        if (typeof v !== "string") return typeErr(jsonKind(v));
        {
          const off = base64ErrorOffset(v);
          if (off >= 0) setType(segs, `illegal base64 data at input byte ${off}`);
        }
        return;
      case "time": {
        // A type error from inside UnmarshalJSON is returned, not saved: it ends decoding too.
        if (typeof v !== "string") return setFatal(segs, typeMessage(jsonKind(v)));
        // Only JSON null is the zero time: "" goes to time.Parse and fails there.
        const err = rfc3339ParseError(v);
        if (err !== undefined) setFatal(segs, err);
        return;
      }
      case "list":
        if (!Array.isArray(v)) return typeErr(jsonKind(v));
        v.forEach((x, i) => walk(x, sc.of, [...segs, i], structName, names));
        return;
      case "map":
        if (!isObject(v)) return typeErr(jsonKind(v));
        for (const k of Object.keys(v)) walk(v[k]!, sc.of, [...segs, k], structName, [...names, k]);
        return;
      case "struct":
        if (!isObject(v)) return typeErr(jsonKind(v));
        for (const k of Object.keys(v)) {
          const f = sc.fields[k];
          if (!f) {
            addStrict("unknown", [...segs, k]);
            continue;
          }
          walk(v[k]!, f, [...segs, k], sc.go, [...names, k]);
        }
        return;
    }
  };
  walk(value, schema, [], "", []);
  if (fatal) return [fatal];
  if (typeError) return [typeError];
  for (const d of duplicates) addStrict("duplicate", d);
  return strict;
}

/** The BadRequest message the apiserver returns for decode errors. */
export function decodeErrorMessage(kind: string, version: string, errors: DecodeError[]): string {
  const first = errors[0];
  const body =
    first?.kind === "type"
      ? first.message
      : "strict decoding error: " + errors.map((e) => e.message).join(", ");
  return `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${body}`;
}
