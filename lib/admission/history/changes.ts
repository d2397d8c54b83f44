/**
 * One change of an admission object, read from the apiserver's audit event of the write (with
 * its actor) or from the watch stream (without one).
 *
 * What the after-state is: at RequestResponse level (the audit policy shipped with the chart) the
 * event's responseObject is the object as stored, with its uid and new resourceVersion, and a
 * delete's is a Status naming the uid. At Request level the request object is all there is: for
 * a create or a full update it is the object as sent (its resourceVersion is the precondition, not
 * the new one), for a patch it is the patch — so the change keeps the patch text and no
 * after-state, and the server takes the after-state from the watch's record of the same write
 * (see server/history). A change is identified by the object's uid and resourceVersion (a
 * deletion by the uid and `delete`): the audit record and the watch record of one write meet
 * there and are kept once.
 */
import { HISTORY_GROUP, kindOfResource, type HistoryKind } from "./kinds";
import { storedForm } from "./diff";

export interface ChangeActor {
  user: string;
  groups: string[];
  userAgent: string;
  /** The authenticated user who impersonated `user` (absent when nobody impersonated). */
  impersonator?: string;
}

type ChangeOperation =
  | "create"
  | "update"
  | "patch"
  | "delete"
  | "deletecollection"
  /** Seen by the watch's first list, not as a write: the version stored when watching began. */
  | "observed";

/** Where a change was read: an audit event, the watch stream, or a static manifest file. */
export type ChangeSource = "audit" | "watch" | "manifest";

/** What a version key of a deletion is (a deletion has no resourceVersion of its own to meet on). */
const DELETED_VERSION = "delete";

export interface ChangeDraft {
  time: number;
  kind: HistoryKind;
  name: string;
  /** "" when the source does not say (Request-level audit of a patch). */
  uid: string;
  /** The new resourceVersion, DELETED_VERSION for a deletion, "" when the source does not say. */
  version: string;
  operation: ChangeOperation;
  source: ChangeSource;
  /** The audit ID of the write ("" from the watch). */
  auditID: string;
  actor?: ChangeActor;
  /** The object after the change (storedForm); absent for a deletion and when unknown. */
  object?: Record<string, unknown>;
  /** A patch's body as sent, when the after-state is unknown. */
  patch?: string;
  /**
   * The kubeconfig context the change was seen through: the watched context, or for an audit
   * event the context whose apiserver sends its audit events here (PORTCULLIS_DECISIONS_CONTEXT;
   * in shared mode the one cluster). Absent or "" when not known (an audit event while that
   * variable is unset, a static manifest file).
   */
  context?: string;
}

/** A stored change. */
export interface ChangeRecord extends ChangeDraft {
  id: number;
}

const WRITE_VERBS = new Set(["create", "update", "patch", "delete", "deletecollection"]);

function obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function metaOf(o: Record<string, unknown> | undefined) {
  const m = obj(o?.metadata);
  return { name: str(m?.name), uid: str(m?.uid), resourceVersion: str(m?.resourceVersion) };
}

function timeOf(e: Record<string, unknown>): number {
  const t = Date.parse(str(e.stageTimestamp) || str(e.requestReceivedTimestamp));
  return Number.isFinite(t) ? t : 0;
}

function actorOf(e: Record<string, unknown>): ChangeActor {
  const user = obj(e.user);
  const imp = obj(e.impersonatedUser);
  const userAgent = str(e.userAgent).slice(0, 512);
  if (imp && str(imp.username))
    return {
      user: str(imp.username),
      groups: strings(imp.groups),
      userAgent,
      impersonator: str(user?.username),
    };
  return { user: str(user?.username), groups: strings(user?.groups), userAgent };
}

/** Whether the text could be an audit event of a write to admission configuration (a cheap test). */
export function mayHoldChanges(text: string): boolean {
  return text.includes(HISTORY_GROUP);
}

/**
 * The changes one audit event records: none unless it is the ResponseComplete event of a
 * successful, not dry-run write to one of the admission kinds (the object itself, not a
 * subresource); a deletecollection gives one change per object its responseObject lists.
 */
export function changesOfAuditEvent(event: unknown): ChangeDraft[] {
  const e = obj(event);
  if (!e || str(e.stage) !== "ResponseComplete") return [];
  const verb = str(e.verb);
  if (!WRITE_VERBS.has(verb)) return [];
  const ref = obj(e.objectRef);
  if (!ref || str(ref.apiGroup) !== HISTORY_GROUP || str(ref.subresource) !== "") return [];
  const kind = kindOfResource(str(ref.resource));
  if (!kind) return [];
  const code = Number(obj(e.responseStatus)?.code ?? 0);
  if (code < 200 || code >= 300) return [];
  if (/[?&]dryRun=/.test(str(e.requestURI))) return [];
  const base = {
    time: timeOf(e),
    kind,
    source: "audit" as const,
    auditID: str(e.auditID).slice(0, 128),
    actor: actorOf(e),
  };
  const response = obj(e.responseObject);
  const request = obj(e.requestObject);

  if (verb === "deletecollection") {
    const items = Array.isArray(response?.items) ? response.items : [];
    return items.flatMap((item) => {
      const m = metaOf(obj(item));
      return m.name
        ? [
            {
              ...base,
              name: m.name,
              uid: m.uid,
              version: DELETED_VERSION,
              operation: "delete" as const,
            },
          ]
        : [];
    });
  }
  const name = str(ref.name);
  if (!name) return [];
  if (verb === "delete") {
    // The response is a Status whose details name the uid (or, for some stores, the object).
    const details = obj(response?.details);
    const uid = str(details?.uid) || metaOf(response).uid || str(ref.uid);
    return [{ ...base, name, uid, version: DELETED_VERSION, operation: "delete" }];
  }
  const operation = verb as "create" | "update" | "patch";
  if (response && str(response.kind) === kind) {
    const m = metaOf(response);
    return [
      {
        ...base,
        name,
        uid: m.uid,
        version: m.resourceVersion,
        operation,
        object: storedForm(response),
      },
    ];
  }
  // Request level: no object as stored.
  if (operation === "patch" || !request) {
    return [
      {
        ...base,
        name,
        uid: str(ref.uid),
        version: "",
        operation,
        ...(request ? { patch: JSON.stringify(request).slice(0, 64 * 1024) } : {}),
      },
    ];
  }
  return [
    {
      ...base,
      name,
      uid: metaOf(request).uid || str(ref.uid),
      version: "",
      operation,
      object: storedForm({ ...request, kind }),
    },
  ];
}

/** The change a watch event records (no actor: the watch does not say who wrote). */
export function changeOfWatchEvent(
  kind: HistoryKind,
  type: "ADDED" | "MODIFIED" | "DELETED" | "SYNC",
  object: Record<string, unknown>,
  now: number,
): ChangeDraft | undefined {
  const m = metaOf(object);
  if (!m.name || !m.uid) return undefined;
  const operation: ChangeOperation =
    type === "ADDED"
      ? "create"
      : type === "MODIFIED"
        ? "update"
        : type === "DELETED"
          ? "delete"
          : "observed";
  return {
    time: now,
    kind,
    name: m.name,
    uid: m.uid,
    version: type === "DELETED" ? DELETED_VERSION : m.resourceVersion,
    operation,
    source: "watch",
    auditID: "",
    ...(type === "DELETED" ? {} : { object: storedForm({ ...object, kind }) }),
  };
}
