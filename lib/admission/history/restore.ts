/**
 * Restoring an earlier version: the object as it is now with the earlier version's configuration
 * — every field but metadata and status taken from the earlier version, and its labels and
 * annotations — so the write keeps the current name, uid and resourceVersion (the precondition:
 * it is refused if the object changed since it was read).
 */

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function restoredObject(current: Obj, earlier: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(earlier)) if (k !== "metadata" && k !== "status") out[k] = v;
  const meta: Obj = { ...(isObj(current.metadata) ? current.metadata : {}) };
  const then = isObj(earlier.metadata) ? earlier.metadata : {};
  for (const k of ["labels", "annotations"]) {
    if (then[k] !== undefined) meta[k] = then[k];
    else delete meta[k];
  }
  return { ...out, apiVersion: current.apiVersion, kind: current.kind, metadata: meta };
}
