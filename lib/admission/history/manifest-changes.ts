/**
 * The changes of the admission objects loaded from the apiserver's static manifest files: what
 * appeared, changed or disappeared since the last change stored of each.
 *
 * A static object has no uid and no resourceVersion, so the key that dedupes changes (uid and
 * version key) is made here: the uid is `manifest:<kind>/<name>` (the apiserver refuses two
 * static objects of one kind and name), and the version key is the digest of the object's
 * content chained to the id of the object's last stored change — `sha256:<hex>:<id>`, or
 * `delete:<id>` for a disappearance. So two different objects never meet on one key (whatever
 * they hold), a file changed back to an earlier content is a new change (its previous change is
 * another one), and two dashboards (replicas on one PostgreSQL) that see the same edit of a file
 * make the same key and keep it once. A restart compares with what is stored: nothing new, no
 * change.
 */
import { sha256Hex } from "@/lib/admission/audit/audit-id";
import type { ChangeDraft } from "./changes";
import { storedForm } from "./diff";
import { isHistoryKind } from "./kinds";

/** One object of the manifests in force. */
export interface ManifestEntry {
  kind: string;
  name: string;
  /** The file it was read from. */
  file: string;
  object: Record<string, unknown>;
}

/** The last stored change of one static object. */
export interface ManifestHead {
  uid: string;
  id: number;
  /** Its version key (`sha256:<hex>:<id>` or `delete:<id>`). */
  versionKey: string;
  /** The file named by its actor, when known. */
  file?: string;
}

/** Who a change of a static object is attributed to. */
export const MANIFEST_ACTOR_PREFIX = "manifest ";

export function manifestUid(kind: string, name: string): string {
  return `manifest:${kind}/${name}`;
}

/** JSON with object keys sorted, so a reordered file is the same content. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (typeof v === "object" && v !== null)
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(v) ?? "null";
}

/** The content digest of a static object as stored (sha256 hex of its canonical JSON). */
function manifestDigest(object: Record<string, unknown>): string {
  return sha256Hex(canonical(object));
}

function digestOfKey(versionKey: string): string | undefined {
  const m = /^sha256:([0-9a-f]+):\d+$/.exec(versionKey);
  return m?.[1];
}

/**
 * The changes that take the stored history (`heads`, the last change of each static object,
 * by uid) to the manifests in force (`objects`), all at `now`. Objects of kinds the history
 * does not keep are left out.
 */
export function manifestChanges(
  objects: readonly ManifestEntry[],
  heads: ReadonlyMap<string, ManifestHead>,
  now: number,
): ChangeDraft[] {
  const out: ChangeDraft[] = [];
  const present = new Set<string>();
  for (const o of objects) {
    if (!isHistoryKind(o.kind)) continue;
    const uid = manifestUid(o.kind, o.name);
    if (present.has(uid)) continue;
    present.add(uid);
    const object = storedForm({ ...o.object, kind: o.kind });
    const digest = manifestDigest(object);
    const head = heads.get(uid);
    const live = head !== undefined && !head.versionKey.startsWith("delete:");
    if (live && digestOfKey(head.versionKey) === digest) continue;
    out.push({
      time: now,
      kind: o.kind,
      name: o.name,
      uid,
      version: `sha256:${digest}:${head?.id ?? 0}`,
      operation: live ? "update" : "create",
      source: "manifest",
      auditID: "",
      actor: { user: `${MANIFEST_ACTOR_PREFIX}${o.file}`, groups: [], userAgent: "" },
      object,
    });
  }
  for (const head of heads.values()) {
    if (present.has(head.uid) || head.versionKey.startsWith("delete:")) continue;
    const m = /^manifest:([^/]+)\/(.+)$/.exec(head.uid);
    const kind = m?.[1];
    const name = m?.[2];
    if (!kind || !name || !isHistoryKind(kind)) continue;
    out.push({
      time: now,
      kind,
      name,
      uid: head.uid,
      version: `delete:${head.id}`,
      operation: "delete",
      source: "manifest",
      auditID: "",
      actor: {
        user: `${MANIFEST_ACTOR_PREFIX}${head.file ?? "(file removed)"}`,
        groups: [],
        userAgent: "",
      },
    });
  }
  return out;
}
