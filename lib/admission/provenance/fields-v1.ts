/**
 * metadata.managedFields[].fieldsV1 read as sigs.k8s.io/structured-merge-diff (v6) writes it
 * (fieldpath/serialize.go, serialize-pe.go): a JSON tree whose keys are path elements — `f:NAME`
 * a struct field or map key, `k:{"key":value,…}` a list item of a map list (its keys as one JSON
 * object, names sorted), `v:VALUE` an item of a set list (the value as JSON), `i:N` an item of an
 * atomic-by-index list — and whose key `.` says the node itself is a member of the set (not only
 * some of its children). A path element mapped to `{}` is a member with nothing below it.
 */

/** One step of a field path. */
export type PathElement =
  | { readonly field: string }
  | { readonly key: Readonly<Record<string, unknown>> }
  | { readonly value: unknown }
  | { readonly index: number };

export type FieldPath = readonly PathElement[];

/** One path element from its serialized form, or undefined when it is not one. */
export function parsePathElement(text: string): PathElement | undefined {
  const sep = text.indexOf(":");
  if (sep !== 1) return undefined;
  const body = text.slice(2);
  switch (text[0]) {
    case "f":
      return { field: body };
    case "i": {
      const n = Number(body);
      return Number.isInteger(n) && n >= 0 ? { index: n } : undefined;
    }
    case "v":
    case "k": {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return undefined;
      }
      if (text[0] === "v") return { value: parsed };
      return parsed && typeof parsed === "object" && !Array.isArray(parsed)
        ? { key: parsed as Record<string, unknown> }
        : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Every member of a fieldsV1 set, as paths: a node is a member when it maps to `{}` or holds `.`.
 * Keys that are not path elements are skipped (a newer encoding is read as far as it is known).
 */
export function membersOf(fieldsV1: unknown): FieldPath[] {
  const out: FieldPath[] = [];
  const walk = (node: unknown, at: PathElement[]) => {
    if (!node || typeof node !== "object" || Array.isArray(node)) return;
    const entries = Object.entries(node as Record<string, unknown>);
    for (const [k, child] of entries) {
      if (k === ".") continue;
      const pe = parsePathElement(k);
      if (!pe) continue;
      const path = [...at, pe];
      const kids = child && typeof child === "object" ? Object.keys(child) : [];
      if (kids.length === 0 || kids.includes(".")) out.push(path);
      walk(child, path);
    }
  };
  walk(fieldsV1, []);
  return out;
}

function jsonText(v: unknown): string {
  return JSON.stringify(v) ?? "null";
}

/**
 * A path as the apiserver prints it in a conflict (fieldpath's String): `.webhooks[name="a"].rules`,
 * a set item `[=VALUE]`, an index `[N]`.
 */
export function pathString(path: FieldPath): string {
  let s = "";
  for (const pe of path) {
    if ("field" in pe) s += `.${pe.field}`;
    else if ("index" in pe) s += `[${pe.index}]`;
    else if ("value" in pe) s += `[=${jsonText(pe.value)}]`;
    else
      s += `[${Object.keys(pe.key)
        .sort()
        .map((k) => `${k}=${jsonText(pe.key[k])}`)
        .join(",")}]`;
  }
  return s;
}

function sameJson(a: unknown, b: unknown): boolean {
  return jsonText(a) === jsonText(b);
}

/** JSON with every object's keys sorted: equal for equal values whatever order keys came in. */
export function canonicalJson(v: unknown): string {
  if (v === undefined) return "undefined";
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

/** The part of `obj` a path names (undefined when it is not there). */
export function valueAt(obj: unknown, path: FieldPath): unknown {
  let cur: unknown = obj;
  for (const pe of path) {
    if (cur === undefined || cur === null) return undefined;
    if ("field" in pe) {
      cur =
        typeof cur === "object" && !Array.isArray(cur)
          ? (cur as Record<string, unknown>)[pe.field]
          : undefined;
    } else if (!Array.isArray(cur)) {
      return undefined;
    } else if ("index" in pe) {
      cur = cur[pe.index];
    } else if ("value" in pe) {
      cur = cur.find((item) => canonicalJson(item) === canonicalJson(pe.value));
    } else {
      const key = pe.key;
      cur = cur.find(
        (item) =>
          item !== null &&
          typeof item === "object" &&
          Object.keys(key).every(
            (k) => canonicalJson((item as Record<string, unknown>)[k]) === canonicalJson(key[k]),
          ),
      );
    }
  }
  return cur;
}

/** Does `path` start with `prefix`? */
export function startsWith(path: FieldPath, prefix: FieldPath): boolean {
  if (prefix.length > path.length) return false;
  return prefix.every((pe, i) => sameJson(pe, path[i]));
}
