import type { FieldPath } from "./field-path";
import { goJson, goQuote } from "./go-format";
import type { JsonValue } from "./json";

/** The cause reasons the apiserver puts in status.details.causes[].reason. */
export type CauseType =
  | "FieldValueRequired"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueDuplicate"
  | "FieldValueTooMany"
  | "FieldValueTooLong"
  | "FieldValueForbidden"
  | "FieldValueTypeInvalid"
  | "InternalError"
  | "FieldValueUnknown";

const typeText: Record<CauseType, string> = {
  FieldValueRequired: "Required value",
  FieldValueInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueDuplicate: "Duplicate value",
  FieldValueTooMany: "Too many",
  FieldValueTooLong: "Too long",
  FieldValueForbidden: "Forbidden",
  FieldValueTypeInvalid: "Invalid value",
  InternalError: "Internal error",
  FieldValueUnknown: "Unknown field",
};

/**
 * How Go printed the bad value: a Go `string` with %q, int/bool with %v, anything else
 * (slices, structs, named string types) through json.Marshal. `marshalled` is json.Marshal's text
 * made by the caller, for Go structs whose fields print in declaration order, not sorted.
 */
type BadValue =
  | { kind: "string"; value: string }
  | { kind: "scalar"; value: number | boolean }
  | { kind: "json"; value: JsonValue }
  | { kind: "marshalled"; text: string }
  | { kind: "omit" };

/** One field.Error, as validation produced it. */
export interface FieldError {
  type: CauseType;
  field: string;
  badValue: BadValue;
  detail: string;
  /** Set on errors that declarative validation replaces when enforced (MarkCoveredByDeclarative). */
  coveredByDeclarative?: boolean;
}

/** field.Error.ErrorBody(): the cause message, without the field path. */
export function errorBody(e: FieldError): string {
  let s = typeText[e.type];
  switch (e.type) {
    case "FieldValueInvalid":
    case "FieldValueTypeInvalid":
    case "FieldValueNotSupported":
    case "FieldValueDuplicate":
    case "FieldValueTooMany":
      if (e.badValue.kind === "string") s += ": " + goQuote(e.badValue.value);
      else if (e.badValue.kind === "scalar") s += ": " + String(e.badValue.value);
      else if (e.badValue.kind === "json") s += ": " + goJson(e.badValue.value);
      else if (e.badValue.kind === "marshalled") s += ": " + e.badValue.text;
      break;
    default:
      break;
  }
  if (e.detail) s += ": " + e.detail;
  return s;
}

/** field.Error.Error(): `<field>: <body>`. */
export function errorString(e: FieldError): string {
  return `${e.field}: ${errorBody(e)}`;
}

const S = (value: string): BadValue => ({ kind: "string", value });

/** field.Required. */
export function required(p: FieldPath, detail = ""): FieldError {
  return { type: "FieldValueRequired", field: p.toString(), badValue: S(""), detail };
}

/** field.Invalid with a Go string bad value. */
export function invalid(p: FieldPath, value: string, detail: string): FieldError {
  return { type: "FieldValueInvalid", field: p.toString(), badValue: S(value), detail };
}

/** field.Invalid with an int/bool bad value. */
export function invalidScalar(p: FieldPath, value: number | boolean, detail: string): FieldError {
  return {
    type: "FieldValueInvalid",
    field: p.toString(),
    badValue: { kind: "scalar", value },
    detail,
  };
}

/** field.Invalid with a bad value Go renders through json.Marshal (slices, structs, named types). */
export function invalidJson(p: FieldPath, value: JsonValue, detail: string): FieldError {
  return {
    type: "FieldValueInvalid",
    field: p.toString(),
    badValue: { kind: "json", value },
    detail,
  };
}

/** field.Invalid with a bad value already rendered as Go's json.Marshal renders it. */
export function invalidMarshalled(p: FieldPath, text: string, detail: string): FieldError {
  return {
    type: "FieldValueInvalid",
    field: p.toString(),
    badValue: { kind: "marshalled", text },
    detail,
  };
}

/**
 * field.NotSupported. `plain` is true when Go passed a plain `string` (printed with %q); named
 * string types go through json.Marshal, which prints the same for ordinary text.
 */
export function notSupported(
  p: FieldPath,
  value: string,
  valid: readonly string[],
  plain = false,
): FieldError {
  return {
    type: "FieldValueNotSupported",
    field: p.toString(),
    badValue: plain ? S(value) : { kind: "json", value },
    detail: valid.length ? "supported values: " + valid.map(goQuote).join(", ") : "",
  };
}

/** field.Duplicate. `plain` as for {@link notSupported}. */
export function duplicate(p: FieldPath, value: string, plain = true): FieldError {
  return {
    type: "FieldValueDuplicate",
    field: p.toString(),
    badValue: plain ? S(value) : { kind: "json", value },
    detail: "",
  };
}

/** field.Forbidden. */
export function forbidden(p: FieldPath, detail: string): FieldError {
  return { type: "FieldValueForbidden", field: p.toString(), badValue: S(""), detail };
}

/** field.TooMany. */
export function tooMany(p: FieldPath, actual: number, max: number): FieldError {
  return {
    type: "FieldValueTooMany",
    field: p.toString(),
    badValue: { kind: "scalar", value: actual },
    detail: `must have at most ${max} ${max === 1 ? "item" : "items"}`,
  };
}

/** field.TooLong (bytes). */
export function tooLong(p: FieldPath, max: number): FieldError {
  return {
    type: "FieldValueTooLong",
    field: p.toString(),
    badValue: { kind: "omit" },
    detail: `may not be more than ${max} ${max === 1 ? "byte" : "bytes"}`,
  };
}

/** field.InternalError. */
export function internalError(p: FieldPath, detail: string): FieldError {
  return { type: "InternalError", field: p.toString(), badValue: { kind: "omit" }, detail };
}
