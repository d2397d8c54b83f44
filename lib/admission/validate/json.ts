/** A JSON value as decoded from a request body (YAML is converted to this first, like the apiserver does). */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** True for a plain JSON object (not an array, not null). */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The object at `key`, or undefined when absent, null or of another type. */
export function obj(o: JsonObject | undefined, key: string): JsonObject | undefined {
  const v = o?.[key];
  return isObject(v) ? v : undefined;
}

/** The array at `key`, or undefined when absent, null or of another type. */
export function arr(o: JsonObject | undefined, key: string): JsonValue[] | undefined {
  const v = o?.[key];
  return Array.isArray(v) ? v : undefined;
}

/**
 * The string at `key`. Go decodes a JSON null into a string field as "", and a pointer field as
 * nil: callers that need the pointer distinction use {@link optStr}.
 */
export function str(o: JsonObject | undefined, key: string): string {
  const v = o?.[key];
  return typeof v === "string" ? v : "";
}

/** The string at `key` as a Go *string: undefined when absent or null. */
export function optStr(o: JsonObject | undefined, key: string): string | undefined {
  const v = o?.[key];
  return typeof v === "string" ? v : undefined;
}

/** The number at `key` as a Go *int32: undefined when absent or null. */
export function optNum(o: JsonObject | undefined, key: string): number | undefined {
  const v = o?.[key];
  return typeof v === "number" ? v : undefined;
}

/** The strings of the array at `key` (non-strings were already reported by strict decoding). */
export function strList(o: JsonObject | undefined, key: string): string[] {
  const a = arr(o, key);
  if (!a) return [];
  return a.map((x) => (typeof x === "string" ? x : ""));
}

/** The objects of the array at `key`; a null element decodes to a zero struct in Go. */
export function objList(o: JsonObject | undefined, key: string): JsonObject[] {
  const a = arr(o, key);
  if (!a) return [];
  return a.map((x) => (isObject(x) ? x : {}));
}

/** True when `key` is present with a non-null value (a Go pointer or slice that is non-nil). */
export function has(o: JsonObject | undefined, key: string): boolean {
  return o !== undefined && key in o && o[key] !== null;
}

/** Structural deep equality of two JSON values (reflect.DeepEqual on decoded data). */
export function deepEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

/** A deep copy of a JSON value. */
export function clone<T extends JsonValue>(v: T): T {
  return structuredClone(v);
}
