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

/** What the apiserver sets on a stored object: a create must not carry it. */
const SERVER_SET_METADATA = [
  "resourceVersion",
  "uid",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "generation",
  "managedFields",
  "selfLink",
  // The objects that owned it may be gone with it: the collector would delete it again.
  "ownerReferences",
];

/**
 * Re-creating a deleted object from its last known state: the state as stored, without what the
 * apiserver sets (resourceVersion, uid, creationTimestamp, managedFields, …), status and
 * kubectl's last-applied annotation, with the given apiVersion and kind, ready to create.
 */
export function recreatedObject(lastKnown: Obj, apiVersion: string, kind: string): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(lastKnown))
    if (k !== "metadata" && k !== "status") out[k] = v;
  const meta: Obj = { ...(isObj(lastKnown.metadata) ? lastKnown.metadata : {}) };
  for (const k of SERVER_SET_METADATA) delete meta[k];
  if (isObj(meta.annotations)) {
    const annotations = { ...meta.annotations };
    delete annotations["kubectl.kubernetes.io/last-applied-configuration"];
    if (Object.keys(annotations).length > 0) meta.annotations = annotations;
    else delete meta.annotations;
  }
  return { ...out, apiVersion, kind, metadata: meta };
}
