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
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
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

export function metaOf(obj: unknown): Meta {
  const m = record(field(obj, "metadata")) ?? {};
  const ns = str(m["namespace"]);
  const managers: string[] = [];
  for (const e of list(m["managedFields"])) {
    const name = str(field(e, "manager"));
    if (name && !managers.includes(name)) managers.push(name);
  }
  return {
    name: str(m["name"]) ?? "",
    ...(ns ? { namespace: ns } : {}),
    ...(str(m["uid"]) ? { uid: str(m["uid"]) } : {}),
    ...(num(m["generation"]) !== undefined ? { generation: num(m["generation"]) } : {}),
    labels: stringMap(m["labels"]),
    annotations: stringMap(m["annotations"]),
    ownerReferences: list(m["ownerReferences"]).flatMap((o) => {
      const apiVersion = str(field(o, "apiVersion"));
      const kind = str(field(o, "kind"));
      const name = str(field(o, "name"));
      if (!apiVersion || !kind || !name) return [];
      const uid = str(field(o, "uid"));
      const controller = bool(field(o, "controller"));
      return [
        {
          apiVersion,
          kind,
          name,
          ...(uid ? { uid } : {}),
          ...(controller !== undefined ? { controller } : {}),
        },
      ];
    }),
    managers,
  };
}
