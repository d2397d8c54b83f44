/** Reading unstructured JSON (objects as the apiserver returns them) without trusting its shape. */

export type Json = Readonly<Record<string, unknown>>;

export function record(x: unknown): Json | undefined {
  return x !== null && typeof x === "object" && !Array.isArray(x) ? (x as Json) : undefined;
}

export function field(x: unknown, ...path: string[]): unknown {
  let cur: unknown = x;
  for (const p of path) {
    const r = record(cur);
    if (!r) return undefined;
    cur = r[p];
  }
  return cur;
}

export function str(x: unknown): string | undefined {
  return typeof x === "string" ? x : undefined;
}

export function num(x: unknown): number | undefined {
  return typeof x === "number" && Number.isFinite(x) ? x : undefined;
}

export function bool(x: unknown): boolean | undefined {
  return typeof x === "boolean" ? x : undefined;
}

export function list(x: unknown): readonly unknown[] {
  return Array.isArray(x) ? x : [];
}

export function strings(x: unknown): string[] {
  return list(x).filter((v): v is string => typeof v === "string");
}

export function stringMap(x: unknown): Readonly<Record<string, string>> {
  const r = record(x);
  if (!r) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(r)) if (typeof v === "string") out[k] = v;
  return out;
}

/** `group` of an apiVersion (`""` for the core group). */
export function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf("/");
  return i < 0 ? "" : apiVersion.slice(0, i);
}

/** `version` of an apiVersion. */
export function versionOf(apiVersion: string): string {
  const i = apiVersion.indexOf("/");
  return i < 0 ? apiVersion : apiVersion.slice(i + 1);
}

/** The metadata every object has, read leniently. */
export interface Meta {
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly generation?: number;
  /** As given (values unchecked: read them with `str`). */
  readonly labels: Json;
  readonly annotations: Json;
  readonly ownerReferences: ReadonlyArray<{
    readonly apiVersion: string;
    readonly kind: string;
    readonly name: string;
    readonly uid?: string;
    readonly controller?: boolean;
  }>;
  /** `metadata.managedFields[].manager`, in order, without repeats. */
  readonly managers: readonly string[];
}

const EMPTY: Json = Object.freeze({});
const NONE: readonly never[] = Object.freeze([]);

/** The metadata, read without copying what it need not (this runs for every object of a cluster). */
export function metaOf(obj: unknown): Meta {
  const m = record(field(obj, "metadata")) ?? EMPTY;
  const ns = str(m["namespace"]);
  const fields = m["managedFields"];
  let managers: readonly string[] = NONE;
  if (Array.isArray(fields) && fields.length > 0) {
    const seen: string[] = [];
    for (const e of fields) {
      const name = str(field(e, "manager"));
      if (name && !seen.includes(name)) seen.push(name);
    }
    managers = seen;
  }
  const owners = m["ownerReferences"];
  let ownerReferences: Meta["ownerReferences"] = NONE;
  if (Array.isArray(owners) && owners.length > 0) {
    const refs: Array<Meta["ownerReferences"][number]> = [];
    for (const o of owners) {
      const apiVersion = str(field(o, "apiVersion"));
      const kind = str(field(o, "kind"));
      const name = str(field(o, "name"));
      if (!apiVersion || !kind || !name) continue;
      refs.push({
        apiVersion,
        kind,
        name,
        uid: str(field(o, "uid")),
        controller: bool(field(o, "controller")),
      });
    }
    ownerReferences = refs;
  }
  // One shape for every object (optional fields present, undefined): this runs per object.
  return {
    name: str(m["name"]) ?? "",
    namespace: ns || undefined,
    uid: str(m["uid"]),
    generation: num(m["generation"]),
    labels: record(m["labels"]) ?? EMPTY,
    annotations: record(m["annotations"]) ?? EMPTY,
    ownerReferences,
    managers,
  };
}
