/**
 * What admission changed in an object: the paths that differ between what was sent and what the
 * apiserver would store, leaving out the fields the apiserver always fills in on create. Pure,
 * bounded (at most {@link MAX_CHANGES} entries, depth 32).
 */

export interface ObjectChange {
  path: string;
  change: "added" | "removed" | "changed";
  /** The stored value (JSON text, cut at 200 characters); absent for removals. */
  value?: string;
}

export const MAX_CHANGES = 100;

/** Set by the apiserver on every create: not an admission effect. */
const SERVER_FIELDS = new Set([
  "metadata.uid",
  "metadata.resourceVersion",
  "metadata.creationTimestamp",
  "metadata.generation",
  "metadata.managedFields",
  "metadata.selfLink",
]);

function text(v: unknown): string {
  const s = JSON.stringify(v) ?? "undefined";
  return s.length > 200 ? `${s.slice(0, 199)}…` : s;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function key(path: string, k: string | number): string {
  if (typeof k === "number") return `${path}[${k}]`;
  return /^[A-Za-z_][\w]*$/.test(k) ? (path ? `${path}.${k}` : k) : `${path}[${JSON.stringify(k)}]`;
}

/** The changes from `sent` to `stored`. */
export function objectChanges(sent: unknown, stored: unknown): ObjectChange[] {
  const out: ObjectChange[] = [];
  const walk = (a: unknown, b: unknown, path: string, depth: number) => {
    if (out.length >= MAX_CHANGES || SERVER_FIELDS.has(path)) return;
    if (depth < 32 && isObj(a) && isObj(b)) {
      for (const k of Object.keys(b)) {
        const p = key(path, k);
        if (SERVER_FIELDS.has(p)) continue;
        if (!(k in a)) out.push({ path: p, change: "added", value: text(b[k]) });
        else walk(a[k], b[k], p, depth + 1);
        if (out.length >= MAX_CHANGES) return;
      }
      for (const k of Object.keys(a))
        if (!(k in b) && out.length < MAX_CHANGES)
          out.push({ path: key(path, k), change: "removed" });
      return;
    }
    if (depth < 32 && Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
      a.forEach((x, i) => walk(x, b[i], key(path, i), depth + 1));
      return;
    }
    if (JSON.stringify(a) !== JSON.stringify(b))
      out.push({ path: path || "(object)", change: "changed", value: text(b) });
  };
  walk(sent, stored, "", 0);
  return out;
}
