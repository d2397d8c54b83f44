/**
 * A field-level diff between two versions of an admission object: each changed leaf by its path
 * (`webhooks[name=a.example.com].clientConfig.caBundle`), lists of named items matched by name so
 * a reorder or an insertion reads as what it is, and a caBundle shown as its digest with its
 * certificates' subject and expiry. What the apiserver changes on every write (resourceVersion,
 * generation, managedFields, timestamps) and status are left out.
 */
import { caBundleText } from "./ca-bundle";

export interface FieldChange {
  path: string;
  change: "added" | "removed" | "changed";
  /** The value before and after, as short text (absent when the field was added or removed). */
  before?: string;
  after?: string;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Fields every write moves or that are not configuration. */
const IGNORED = new Set([
  "metadata.resourceVersion",
  "metadata.generation",
  "metadata.managedFields",
  "metadata.creationTimestamp",
  "metadata.deletionTimestamp",
  "metadata.uid",
  "metadata.selfLink",
  "status",
]);

/** Longest value text kept in a change. */
const MAX_VALUE_CHARS = 300;

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function valueText(path: string, v: unknown): string {
  if (typeof v === "string" && /(^|\.)caBundle$/.test(path)) return caBundleText(v);
  const text = typeof v === "string" ? v : JSON.stringify(v);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
}

/** Items of a list matched by their `name` when every item has a distinct one. */
function namedItems(list: readonly unknown[]): Map<string, unknown> | undefined {
  const out = new Map<string, unknown>();
  for (const item of list) {
    if (!isObject(item) || typeof item.name !== "string" || out.has(item.name)) return undefined;
    out.set(item.name, item);
  }
  return out;
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function walk(path: string, a: unknown, b: unknown, out: FieldChange[]): void {
  if (IGNORED.has(path)) return;
  if (a === undefined && b === undefined) return;
  if (a === undefined) {
    out.push({ path, change: "added", after: valueText(path, b) });
    return;
  }
  if (b === undefined) {
    out.push({ path, change: "removed", before: valueText(path, a) });
    return;
  }
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const k of keys) walk(join(path, k), a[k], b[k], out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const na = namedItems(a);
    const nb = namedItems(b);
    if (na && nb && (na.size > 0 || nb.size > 0)) {
      const names = [...new Set([...na.keys(), ...nb.keys()])];
      for (const n of names) walk(`${path}[name=${n}]`, na.get(n), nb.get(n), out);
      const orderA = [...na.keys()].filter((n) => nb.has(n));
      const orderB = [...nb.keys()].filter((n) => na.has(n));
      if (orderA.join("\u0000") !== orderB.join("\u0000"))
        out.push({
          path: `${path}[*].name`,
          change: "changed",
          before: valueText("", orderA),
          after: valueText("", orderB),
        });
      return;
    }
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) walk(`${path}[${i}]`, a[i], b[i], out);
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b))
    out.push({ path, change: "changed", before: valueText(path, a), after: valueText(path, b) });
}

/**
 * The fields that differ from `before` to `after` (either may be undefined: a creation, a
 * deletion), in the order of the objects' own fields.
 */
export function diffObjects(before: unknown, after: unknown): FieldChange[] {
  const out: FieldChange[] = [];
  if (before === undefined && after === undefined) return out;
  if (before === undefined || after === undefined) {
    // A creation or a deletion: every top-level configuration field, as added or removed.
    const obj = (before ?? after) as Record<string, unknown>;
    for (const k of Object.keys(isObject(obj) ? obj : {})) {
      if (k === "apiVersion" || k === "kind" || k === "metadata" || IGNORED.has(k)) continue;
      walk(
        k,
        before === undefined ? undefined : obj[k],
        after === undefined ? undefined : obj[k],
        out,
      );
    }
    return out;
  }
  walk("", before, after, out);
  return out;
}

/**
 * An object as the history stores it: without managedFields (large, and what the provenance
 * pages read from the live object) and without the last-applied annotation (a second copy).
 */
export function storedForm(object: Record<string, unknown>): Record<string, unknown> {
  const meta = isObject(object.metadata) ? { ...object.metadata } : undefined;
  if (!meta) return object;
  delete meta.managedFields;
  if (isObject(meta.annotations)) {
    const annotations = { ...meta.annotations };
    delete annotations["kubectl.kubernetes.io/last-applied-configuration"];
    meta.annotations = annotations;
    if (Object.keys(annotations).length === 0) delete meta.annotations;
  }
  return { ...object, metadata: meta };
}
