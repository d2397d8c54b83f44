/**
 * Turns audit.k8s.io/v1 events into admission decisions: one per webhook or policy call the
 * event records. Pure and defensive: audit batches arrive from the network, so every field is
 * checked before it is read, every string scan is linear (indexOf, no backtracking regex over
 * values), and Secret / TokenReview contents are dropped before anything is kept.
 *
 * What the apiserver (1.37) writes, and so what can be known:
 * - mutating webhooks: `mutation.webhook.admission.k8s.io/round_R_index_I` for every call
 *   (configuration, webhook, mutated), `patch.webhook.admission.k8s.io/round_R_index_I` with the
 *   patch at Request level and above, `failed-open.mutation.…` when an Ignore hook failed;
 * - validating webhooks: only `failed-open.validating.webhook.admission.k8s.io/round_0_index_I`;
 *   an allowing validating webhook leaves no trace;
 * - denials and fail-closed errors: in `responseStatus` (webhook denials read
 *   `admission webhook "<name>" denied the request: …`; a failed fail-closed call is a 500
 *   `Internal error occurred: failed calling webhook "<name>": …`);
 * - ValidatingAdmissionPolicy: a denial in `responseStatus`; failures of bindings with the Audit
 *   action in `validation.policy.admission.k8s.io/validation_failure` (a Warn-only binding's
 *   warning goes to the client, never to the audit event);
 * - `apiserver.latency.k8s.io/*`: per phase (all mutating webhooks together, all validating
 *   together), only for requests slower than 500 ms — request facts, never one hook's latency.
 */

import { storedAuditID, wellFormedPrefix } from "./audit-id";
import {
  FAILED_OPEN_MUTATING,
  FAILED_OPEN_VALIDATING,
  LATENCY,
  MUTATION,
  PATCH,
  VALIDATION_FAILURE,
} from "./audit-keys";
import { POD_SECURITY } from "./deciders";
import { readStatusMessage } from "./status-message";

export type DecisionOutcome =
  | "admitted"
  | "mutated"
  | "denied"
  | "failed-open"
  | "error"
  | "timeout"
  | "rejected"
  | "warned"
  | "audited";

export const DECISION_OUTCOMES: readonly DecisionOutcome[] = [
  "admitted",
  "mutated",
  "denied",
  "failed-open",
  "error",
  "timeout",
  "rejected",
  "warned",
  "audited",
];

/**
 * Who decided. `webhook` is a webhook whose phase the event does not tell (a denial or a
 * fail-closed error of a validating webhook, or of a mutating one the event has no annotation for).
 */
export type DeciderKind =
  | "mutating-webhook"
  | "validating-webhook"
  | "webhook"
  | "validating-policy"
  | "mutating-policy"
  | "pod-security";

type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT" | "";

/** What the request was, as the audit event records it. */
export interface AuditRequestFacts {
  /**
   * The user admission saw: the impersonated user when the request impersonated one (the
   * impersonation filter puts it in the request's context before admission runs), else the
   * authenticated user.
   */
  user: string;
  groups: string[];
  /** The authenticated user, when it impersonated `user` (absent otherwise). */
  impersonatedBy?: string;
  verb: string;
  operation: AdmissionOperation;
  requestURI: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  dryRun: boolean;
  /** HTTP status the client got. */
  code?: number;
  /** Phase latencies (`apiserver.latency.k8s.io/<phase>` → Go duration text), when present. */
  latencies: Record<string, string>;
}

/** One webhook or policy call and its outcome. */
export interface DecisionCall {
  kind: DeciderKind;
  /** Webhook or policy name. */
  hook: string;
  /** Webhook configuration name (webhooks) or binding name (policies), when known. */
  configuration: string;
  outcome: DecisionOutcome;
  /** Reinvocation round and position of a mutating call (index among matched hooks for failed-open validating ones). */
  round?: number;
  index?: number;
  /** The response code the call produced (denials and errors). */
  code?: number;
  message: string;
  /** JSON text of the patch a mutating webhook applied (Request audit level and above). */
  patch?: string;
}

/** One audit event with its decisions. */
export interface ParsedAuditEvent {
  /** The request's audit ID, bounded (see storedAuditID). */
  auditID: string;
  stage: string;
  /** Milliseconds since the epoch (stageTimestamp, else requestReceivedTimestamp, else 0). */
  time: number;
  request: AuditRequestFacts;
  decisions: DecisionCall[];
  /**
   * The event as JSON text with sensitive contents removed and bounded in size: the sender's own
   * text when nothing had to be removed (no re-serialisation), else the redacted event. Empty
   * for an event without decisions: nothing stores those.
   */
  raw: string;
  /**
   * When `raw` is the sender's own text of item `rawItem` of a body received as bytes: that body,
   * whose bytes of the text a store can copy as they are instead of encoding the string again.
   */
  rawSource?: ItemBytes;
  rawItem?: number;
}

/** A body's items as bytes. */
export interface ItemBytes {
  readonly bytes: Uint8Array;
  /**
   * Where the bytes of item `k`, whose text is `text`, start in `bytes` (they end at `end`), or -1
   * when they cannot be told apart.
   */
  start(k: number): number;
  end(k: number, text: string): number;
}

/** A stored decision as the API returns it. */
export interface DecisionRecord extends DecisionCall {
  id: number;
  auditID: string;
  stage: string;
  time: number;
  request: AuditRequestFacts;
  /**
   * How long the call took as the apiserver's trace timed it (ms), when its traces reach the
   * dashboard; added when read, never stored.
   */
  tracedMs?: number[];
}

/** Longest message or patch text kept per decision. */
export const MAX_DECISION_TEXT = 8 * 1024;
/**
 * Longest raw event kept, in characters: a larger one loses its request/response objects, then
 * has its annotation values cut, and, when even that is not enough, is kept as its request facts
 * only (see rawWithinBounds).
 */
export const MAX_RAW_EVENT_CHARS = 64 * 1024;

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function isString(v: unknown): v is string {
  return typeof v === "string";
}

/** The first `n` strings of `a`. */
function firstStrings(a: unknown[], n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < a.length && out.length < n; i++) {
    const v = a[i];
    if (typeof v === "string") out.push(v);
  }
  return out;
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

function parseJson(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

function clip(s: string): string {
  return s.length > MAX_DECISION_TEXT ? `${s.slice(0, MAX_DECISION_TEXT)}…` : s;
}

/** Resources whose contents must never be stored (Secret data, tokens). */
function isSensitiveResource(group: string, resource: string, subresource: string): boolean {
  if (group === "" && resource === "secrets") return true;
  if (group === "" && resource === "serviceaccounts" && subresource === "token") return true;
  if (group === "authentication.k8s.io") return true;
  return false;
}

const CONNECT_SUBRESOURCES = new Set(["exec", "attach", "portforward", "proxy"]);

/**
 * The admission operation of a request. An update or patch that created its object (a
 * server-side apply of a new object, or an update where the resource allows create on update)
 * ran admission as CREATE and answers 201 (endpoints/handlers/patch.go, update.go: admission.Create
 * when the object is not found, StatusCreated when wasCreated). One refused by admission cannot
 * be told apart from a refused update: its code is the refusal's, so it reads as UPDATE.
 */
function operationOf(verb: string, subresource: string, code: unknown): AdmissionOperation {
  if (CONNECT_SUBRESOURCES.has(subresource)) return "CONNECT";
  switch (verb) {
    case "create":
      return "CREATE";
    case "update":
    case "patch":
      return code === 201 ? "CREATE" : "UPDATE";
    case "delete":
    case "deletecollection":
      return "DELETE";
    default:
      return "";
  }
}

function dryRunOf(requestURI: string): boolean {
  const q = requestURI.indexOf("?");
  if (q < 0) return false;
  for (const part of requestURI.slice(q + 1).split("&")) {
    if (part === "dryRun=All") return true;
  }
  return false;
}

/**
 * Whether a request was a dry run. A delete sends its DeleteOptions in the body (kubectl and
 * client-go do), and then the apiserver reads them there, not from the query
 * (endpoints/handlers/delete.go): its dry run is in the event only as the request object, which
 * the apiserver logs at Request level (the shipped audit policy logs deletes so). At Metadata
 * level such a dry run cannot be told from a real delete.
 */
function isDryRun(verb: string, requestURI: string, requestObject: unknown): boolean {
  const options = obj(requestObject);
  if ((verb === "delete" || verb === "deletecollection") && options?.kind === "DeleteOptions") {
    return Array.isArray(options.dryRun) && options.dryRun.includes("All");
  }
  return dryRunOf(requestURI);
}

/**
 * What a stored event keeps of a delete's DeleteOptions when it drops the request object (a
 * Secret's, or an event too large): its dry run, so the request reads back as it was.
 */
function keptDeleteOptions(e: Record<string, unknown>): Record<string, unknown> | undefined {
  const verb = str(e.verb);
  if (!isDryRun(verb, "", e.requestObject)) return undefined;
  return {
    kind: "DeleteOptions",
    apiVersion: str(obj(e.requestObject)?.apiVersion),
    dryRun: ["All"],
  };
}

/** Written (requests over 500 ms) only once a validating webhook was called (request/webhook_duration.go). */
const VALIDATING_WEBHOOK_LATENCY = `${LATENCY}validating-webhook`;

/**
 * Where in `calls` (sorted by byCallOrder) the mutating call is that refused the request on behalf
 * of `hook` (a denial or a fail-closed error), or -1 when no recorded call can be it: then a
 * validating webhook of that name refused. The mutating dispatcher annotates every call it makes,
 * the refusing one too (the mutation annotation is deferred: `mutated` false, and no patch
 * annotation, which is written only once a patch was applied), and stops at a refusal, so the
 * refusing call is the last mutating call recorded (mutating/dispatcher.go Dispatch,
 * callAttrMutatingHook). A webhook name is often in a mutating and a validating configuration
 * alike (cert-manager's): an earlier call, or one that mutated or failed open, is not the
 * refusal. Nor is any mutating call when the validating phase has begun, which a validating
 * fail-open, a policy's validation failure or the validating webhooks' latency shows (a request
 * slower than 500 ms gets `apiserver.latency.k8s.io/validating-webhook` once a validating webhook
 * was called: a validating hook's timeout always does). When the last call has the name and did
 * not mutate, and nothing shows the validating phase began, the event cannot tell the two apart;
 * it is read as that call's.
 */
function refusingMutatingCall(calls: CallDraft[], hook: string, validatingBegan: boolean): number {
  if (validatingBegan) return -1;
  let last = -1;
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i] as CallDraft;
    if (c.kind !== "mutating-webhook") return -1; // a validating webhook failed open
    last = i;
  }
  const c = calls[last];
  return c && c.hook === hook && !c.failedOpen && c.mutated !== true && !c.patched ? last : -1;
}

/** `round_R_index_I` → [R, I], or undefined. */
function roundIndex(suffix: string): [number, number] | undefined {
  if (!suffix.startsWith("round_")) return undefined;
  const mid = suffix.indexOf("_index_");
  if (mid < 0) return undefined;
  const rLen = mid - 6;
  const iLen = suffix.length - mid - 7;
  if (rLen < 1 || rLen > 6 || iLen < 1 || iLen > 6) return undefined;
  const r = digits(suffix, 6, rLen);
  const i = digits(suffix, mid + 7, iLen);
  return r < 0 || i < 0 ? undefined : [r, i];
}

interface CallDraft {
  kind: DeciderKind;
  hook: string;
  configuration: string;
  round: number;
  index: number;
  mutated?: boolean;
  /** A patch annotation was written for the call (its text is in `patch` when readable). */
  patched?: boolean;
  patch?: string;
  failedOpen?: boolean;
}

interface ValidationFailure {
  message: string;
  policy: string;
  binding: string;
  actions: string[];
}

function readValidationFailures(value: string): ValidationFailure[] {
  const parsed = parseJson(value);
  if (!Array.isArray(parsed)) return [];
  const out: ValidationFailure[] = [];
  for (const item of parsed.slice(0, 50)) {
    const f = obj(item);
    if (!f) continue;
    out.push({
      message: str(f.message),
      policy: str(f.policy),
      binding: str(f.binding),
      actions: Array.isArray(f.validationActions) ? f.validationActions.filter(isString) : [],
    });
  }
  return out;
}

/** The draft of call (kind, round, index), added to `calls` when new (a handful per event). */
function draftOf(calls: CallDraft[], kind: DeciderKind, r: number, i: number): CallDraft {
  for (const c of calls) if (c.kind === kind && c.round === r && c.index === i) return c;
  const d: CallDraft = { kind, hook: "", configuration: "", round: r, index: i };
  calls.push(d);
  return d;
}

function byCallOrder(a: CallDraft, b: CallDraft): number {
  return (
    (a.kind === b.kind ? 0 : a.kind === "mutating-webhook" ? -1 : 1) ||
    a.round - b.round ||
    a.index - b.index
  );
}

function webhookCalls(annotations: Record<string, string>): CallDraft[] {
  const calls: CallDraft[] = [];
  for (const key in annotations) {
    const value = annotations[key] ?? "";
    if (key.startsWith(MUTATION) || key.startsWith(PATCH)) {
      const isPatch = key.startsWith(PATCH);
      const ri = roundIndex(key.slice(isPatch ? PATCH.length : MUTATION.length));
      if (!ri) continue;
      const parsed = obj(parseJson(value));
      const d = draftOf(calls, "mutating-webhook", ri[0], ri[1]);
      d.hook ||= str(parsed?.webhook);
      d.configuration ||= str(parsed?.configuration);
      if (isPatch) {
        // A patch that changed nothing (a reinvoked hook adding what it added before) is logged
        // too: the mutation annotation's own word decides, the patch only where it is missing.
        d.mutated ??= true;
        d.patched = true;
        if (parsed && parsed.patch !== undefined) d.patch = clip(JSON.stringify(parsed.patch));
      } else if (typeof parsed?.mutated === "boolean") {
        d.mutated = parsed.mutated;
      }
    } else if (key.startsWith(FAILED_OPEN_MUTATING) || key.startsWith(FAILED_OPEN_VALIDATING)) {
      const validating = key.startsWith(FAILED_OPEN_VALIDATING);
      const ri = roundIndex(
        key.slice(validating ? FAILED_OPEN_VALIDATING.length : FAILED_OPEN_MUTATING.length),
      );
      if (!ri) continue;
      const d = draftOf(
        calls,
        validating ? "validating-webhook" : "mutating-webhook",
        ri[0],
        ri[1],
      );
      d.hook ||= value;
      d.failedOpen = true;
    }
  }
  return calls.length > 1 ? calls.sort(byCallOrder) : calls;
}

function requestFacts(e: Record<string, unknown>, annotations: Record<string, string>) {
  // endpoints/filters/impersonation: the impersonated user (the event's impersonatedUser, with
  // the groups it was given, system:authenticated among them) is the one webhooks, their
  // matchConditions and policies see; the event's user is who authenticated.
  const authenticated = obj(e.user);
  const impersonated = obj(e.impersonatedUser);
  const user = impersonated ?? authenticated;
  const ref = obj(e.objectRef);
  const status = obj(e.responseStatus);
  const requestURI = str(e.requestURI);
  const verb = str(e.verb);
  const subresource = str(ref?.subresource);
  const latencies: Record<string, string> = {};
  for (const key in annotations) {
    if (key.startsWith(LATENCY)) latencies[key.slice(LATENCY.length)] = annotations[key] ?? "";
  }
  const facts: AuditRequestFacts = {
    user: str(user?.username),
    groups: Array.isArray(user?.groups) ? firstStrings(user.groups, 64) : [],
    verb,
    operation: operationOf(verb, subresource, status?.code),
    requestURI: requestURI.slice(0, 2048),
    group: str(ref?.apiGroup),
    version: str(ref?.apiVersion),
    resource: str(ref?.resource),
    subresource,
    namespace: str(ref?.namespace),
    name: str(ref?.name),
    dryRun: isDryRun(verb, requestURI, e.requestObject),
    code: typeof status?.code === "number" ? status.code : undefined,
    latencies,
  };
  if (impersonated) facts.impersonatedBy = str(authenticated?.username);
  return { facts, statusMessage: str(status?.message) };
}

/** Digits of `s` at [at, at + n) as a number, or -1. */
function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/**
 * Milliseconds of an RFC 3339 time as Date.parse reads it. The apiserver's own form
 * (`2026-11-23T11:34:40.125606Z`: UTC, microseconds, truncated to milliseconds as Date.parse
 * does) is read digit by digit; anything else, and days past the 28th, go to Date.parse.
 */
export function parseTime(s: string): number {
  if (s.length >= 20 && s.length <= 30 && s.charCodeAt(s.length - 1) === 0x5a) {
    const y = digits(s, 0, 4);
    const mo = digits(s, 5, 2);
    const d = digits(s, 8, 2);
    const h = digits(s, 11, 2);
    const mi = digits(s, 14, 2);
    const se = digits(s, 17, 2);
    const seps = s[4] === "-" && s[7] === "-" && s[10] === "T" && s[13] === ":" && s[16] === ":";
    let ms = 0;
    let ok = seps && y >= 1000 && mo >= 1 && mo <= 12 && d >= 1 && d <= 28;
    ok &&= h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && se >= 0 && se <= 59;
    if (ok && s.length > 20) {
      const frac = digits(s, 20, s.length - 21);
      ok = s[19] === "." && frac >= 0 && s.length > 21;
      if (ok) ms = Math.floor(frac / 10 ** (s.length - 24));
    }
    if (ok) return Date.UTC(y, mo - 1, d, h, mi, se, ms);
  }
  return Date.parse(s);
}

function timeOf(e: Record<string, unknown>): number {
  let t = parseTime(str(e.stageTimestamp));
  if (Number.isFinite(t)) return t;
  t = parseTime(str(e.requestReceivedTimestamp));
  return Number.isFinite(t) ? t : 0;
}

/** The event as kept for the detail view: no Secret/TokenReview contents, bounded in size. */
function redact(
  e: Record<string, unknown>,
  facts: AuditRequestFacts,
  annotations: Record<string, string>,
): Record<string, unknown> {
  const sensitive = isSensitiveResource(facts.group, facts.resource, facts.subresource);
  const out: Record<string, unknown> = { ...e };
  if (sensitive) {
    delete out.requestObject;
    delete out.responseObject;
    const options = keptDeleteOptions(e);
    if (options) out.requestObject = options;
    const safe: Record<string, string> = {};
    for (const key in annotations) {
      if (key.startsWith(PATCH)) {
        const parsed = obj(parseJson(annotations[key] ?? ""));
        safe[key] = JSON.stringify({
          configuration: str(parsed?.configuration),
          webhook: str(parsed?.webhook),
          patch: "(removed: Secret and token contents are not stored)",
        });
      } else safe[key] = annotations[key] ?? "";
    }
    out.annotations = safe;
  }
  return out;
}

function hasObjects(raw: Record<string, unknown>): boolean {
  return raw.requestObject !== undefined || raw.responseObject !== undefined;
}

/** `s` cut to `limit` characters (never between the halves of a surrogate pair), saying so. */
function cutText(s: string, limit: number): string {
  if (s.length <= limit) return s;
  const kept = wellFormedPrefix(s, limit);
  return `${kept}… (${s.length - kept.length} characters cut)`;
}

/** Longest annotation value a too-large event keeps at first, halved until the event fits. */
const FIRST_ANNOTATION_CUT = 8 * 1024;
const LAST_ANNOTATION_CUT = 64;

const withNote = (e: Record<string, unknown>, notes: string[]) =>
  JSON.stringify({ ...e, portcullisNote: `${notes.join("; ")}: event too large` });

/**
 * `text` (the event `raw`'s JSON) when within MAX_RAW_EVENT_CHARS, else valid JSON that is, with
 * a `portcullisNote` saying what was left out: first the request and response objects; then
 * annotation values (a webhook's auditAnnotations, a policy's, can be megabytes) are cut, each
 * marked where it was; and when the event is still too large (a huge request URI, user or
 * Audit-ID), only what the request facts are read from is kept, cut likewise.
 */
function rawWithinBounds(raw: Record<string, unknown>, text: string): string {
  if (text.length <= MAX_RAW_EVENT_CHARS) return text;
  try {
    const notes: string[] = [];
    let rest = raw;
    if (hasObjects(raw)) {
      const { requestObject: _req, responseObject: _res, ...others } = raw;
      const options = keptDeleteOptions(raw);
      rest = options ? { ...others, requestObject: options } : others;
      notes.push("request and response objects removed");
      const t = withNote(rest, notes);
      if (t.length <= MAX_RAW_EVENT_CHARS) return t;
    }
    const annotations = obj(rest.annotations);
    for (
      let limit = FIRST_ANNOTATION_CUT;
      annotations && limit >= LAST_ANNOTATION_CUT;
      limit /= 2
    ) {
      const cut: Record<string, unknown> = {};
      let any = false;
      for (const k in annotations) {
        const v = annotations[k];
        any ||= typeof v === "string" && v.length > limit;
        cut[k] = typeof v === "string" ? cutText(v, limit) : v;
      }
      if (!any) continue;
      const t = withNote({ ...rest, annotations: cut }, [
        ...notes,
        `annotation values longer than ${limit} characters cut`,
      ]);
      if (t.length <= MAX_RAW_EVENT_CHARS) return t;
    }
  } catch {
    // Nested too deeply to be written again: the facts alone.
  }
  return factsOnly(raw);
}

/**
 * What requestFacts reads of an event, every string cut to at most `limit` characters (halved
 * until it fits; the request URI to no less than the 2048 the facts keep), the groups to their
 * first 64 and the latency annotations to their first 16. Read back, the facts are the event's
 * unless one of those strings was itself that long (a `dryRun=All` past a URI's first 2048
 * characters is cut with the rest).
 */
function factsOnly(e: Record<string, unknown>): string {
  for (let limit = 1024; ; limit /= 2) {
    const cut = (v: unknown) => cutText(str(v), limit);
    const who = (v: unknown) => {
      const u = obj(v);
      if (!u) return undefined;
      const groups = Array.isArray(u.groups) ? firstStrings(u.groups, 64).map(cut) : [];
      return { username: cut(u.username), groups };
    };
    const ref = obj(e.objectRef) ?? {};
    const status = obj(e.responseStatus);
    const annotations = obj(e.annotations) ?? {};
    const latencies: Record<string, string> = {};
    let n = 0;
    for (const k in annotations) {
      const v = annotations[k];
      if (k.startsWith(LATENCY) && k.length <= 128 && typeof v === "string" && n++ < 16)
        latencies[k] = cut(v);
    }
    const out: Record<string, unknown> = {
      kind: cut(e.kind),
      apiVersion: cut(e.apiVersion),
      level: cut(e.level),
      auditID: cut(e.auditID),
      stage: cut(e.stage),
      requestURI: cutText(str(e.requestURI), Math.max(limit, 2048)),
      verb: cut(e.verb),
      user: who(e.user),
      impersonatedUser: who(e.impersonatedUser),
      objectRef: {
        apiGroup: cut(ref.apiGroup),
        apiVersion: cut(ref.apiVersion),
        resource: cut(ref.resource),
        subresource: cut(ref.subresource),
        namespace: cut(ref.namespace),
        name: cut(ref.name),
      },
      responseStatus: status && {
        code: typeof status.code === "number" ? status.code : undefined,
        message: cut(status.message),
      },
      requestReceivedTimestamp: cut(e.requestReceivedTimestamp),
      stageTimestamp: cut(e.stageTimestamp),
      requestObject: keptDeleteOptions(e),
      annotations: latencies,
      portcullisNote: "only the request facts kept: event too large",
    };
    const t = JSON.stringify(out);
    if (t.length <= MAX_RAW_EVENT_CHARS || limit <= 16) return t;
  }
}

/**
 * The stored text of an event: `source` (the sender's JSON text of exactly this event, when the
 * caller has it) unless something must be removed, so the common case costs no serialisation.
 */
function rawText(
  e: Record<string, unknown>,
  facts: AuditRequestFacts,
  annotations: Record<string, string>,
  source: string | undefined,
): string {
  if (source !== undefined && !isSensitiveResource(facts.group, facts.resource, facts.subresource))
    return rawWithinBounds(e, source);
  const redacted = redact(e, facts, annotations);
  return rawWithinBounds(redacted, JSON.stringify(redacted));
}

function annotationsOf(e: Record<string, unknown>): Record<string, string> {
  const annotations: Record<string, string> = {};
  const rawAnnotations = obj(e.annotations);
  if (rawAnnotations) {
    for (const k in rawAnnotations) {
      const v = rawAnnotations[k];
      if (typeof v === "string") annotations[k] = v;
    }
  }
  return annotations;
}

/**
 * The request facts of a stored event's JSON text (what `parseAuditEvent` gave as `request`);
 * undefined when the text is not an event.
 */
export function requestFactsOfRaw(raw: string): AuditRequestFacts | undefined {
  return requestFactsOfEvent(parseStoredEvent(raw));
}

/** A stored event's JSON text parsed (undefined when it is not JSON). */
export const parseStoredEvent = (raw: string): unknown => parseJson(raw);

/** The request facts of a stored event already parsed (`parseStoredEvent`). */
export function requestFactsOfEvent(event: unknown): AuditRequestFacts | undefined {
  const e = obj(event);
  return e ? requestFacts(e, annotationsOf(e)).facts : undefined;
}

/**
 * The stages whose event is not read for decisions: a request's admission is told once, by its
 * last event. RequestReceived is written before admission runs. A long-running request
 * (exec, attach, portforward, proxy, watch) also gets a ResponseStarted event when its response
 * starts, already with the annotations and response status, and then, from the same event
 * object, its ResponseComplete, or Panic if the handler panics (endpoints/filters/audit.go
 * WithAudit: the deferred ProcessEventStage, which also fakes the ResponseStarted of a request
 * that never wrote one before its ResponseComplete). Annotations are only ever added, never
 * changed (audit/context.go addAuditAnnotationLocked), so the last event holds all the first
 * one did. Taking both would store and count the request twice. The cost: an allowed exec's
 * decisions reach the feed when its session ends. (An audit policy that omits ResponseComplete
 * leaves nothing to read for any request, long-running or not.)
 */
const UNDECIDED_STAGES = new Set(["RequestReceived", "ResponseStarted"]);

/** Audit annotations of the in-tree PodSecurity plugin (set whenever it evaluates a pod). */
const POD_SECURITY_ENFORCED = "pod-security.kubernetes.io/enforce-policy";
const POD_SECURITY_AUDIT = "pod-security.kubernetes.io/audit-violations";
/** Its refusal's message: `pods "x" is forbidden: violates PodSecurity "baseline:latest": …`. */
const POD_SECURITY_REFUSAL =
  /is forbidden: violates PodSecurity "(?:privileged|baseline|restricted):(?:latest|v1\.\d+)": /;

/**
 * The in-tree PodSecurity plugin's decisions: its refusal of a pod (the response status, when it
 * evaluated the pod and no webhook or policy is named), and the violations of its audit standard
 * (a pod's or a workload's pod template's), which it records as an audit annotation. A pod it
 * lets through without violations is no decision.
 */
function podSecurityDecisions(
  annotations: Record<string, string>,
  status: ReturnType<typeof readStatusMessage> | undefined,
  statusMessage: string,
  code: number | undefined,
): DecisionCall[] {
  const out: DecisionCall[] = [];
  if (
    code === 403 &&
    status === undefined &&
    annotations[POD_SECURITY_ENFORCED] !== undefined &&
    POD_SECURITY_REFUSAL.test(statusMessage)
  )
    out.push({
      kind: "pod-security",
      hook: POD_SECURITY,
      configuration: "",
      outcome: "denied",
      code,
      message: clip(statusMessage),
    });
  const audit = annotations[POD_SECURITY_AUDIT];
  if (audit !== undefined && audit.startsWith("would violate PodSecurity "))
    out.push({
      kind: "pod-security",
      hook: POD_SECURITY,
      configuration: "",
      outcome: "audited",
      message: clip(audit),
    });
  return out;
}

/**
 * Decodes one audit event; undefined for anything that is not one. `source`, when given, must be
 * the JSON text `event` was parsed from: it is kept as the raw event when nothing is redacted.
 */
export function parseAuditEvent(event: unknown, source?: string): ParsedAuditEvent | undefined {
  const e = obj(event);
  if (!e) return undefined;
  const id = str(e.auditID);
  if (!id) return undefined;
  const auditID = storedAuditID(id);
  const annotations = annotationsOf(e);
  const { facts, statusMessage } = requestFacts(e, annotations);
  const stage = str(e.stage).slice(0, 32);
  if (UNDECIDED_STAGES.has(stage))
    return { auditID, stage, time: timeOf(e), request: facts, decisions: [], raw: "" };
  const sensitive = isSensitiveResource(facts.group, facts.resource, facts.subresource);
  const decisions: DecisionCall[] = [];
  const status = statusMessage ? readStatusMessage(statusMessage) : undefined;
  let statusUsed = false;

  const calls = webhookCalls(annotations);
  const refusedAt =
    status?.by === "webhook"
      ? refusingMutatingCall(
          calls,
          status.hook,
          annotations[VALIDATION_FAILURE] !== undefined ||
            annotations[VALIDATING_WEBHOOK_LATENCY] !== undefined,
        )
      : -1;
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i] as CallDraft;
    let d: DecisionCall;
    if (i === refusedAt && status?.by === "webhook") {
      statusUsed = true;
      d = call(c, status.outcome, clip(status.message));
      d.code = facts.code;
    } else if (c.failedOpen) {
      d = call(c, "failed-open", "");
    } else {
      d = call(c, c.mutated ? "mutated" : "admitted", "");
      if (c.patch !== undefined && !sensitive) d.patch = c.patch;
    }
    decisions.push(d);
  }
  if (status?.by === "webhook" && !statusUsed) {
    decisions.push({
      kind: "webhook",
      hook: status.hook,
      configuration: "",
      outcome: status.outcome,
      code: facts.code,
      message: clip(status.message),
    });
  }

  const failures = annotations[VALIDATION_FAILURE];
  const policyRows = new Set<string>();
  if (failures) {
    for (const f of readValidationFailures(failures)) {
      const outcome: DecisionOutcome = f.actions.includes("Deny")
        ? "rejected"
        : f.actions.includes("Warn")
          ? "warned"
          : "audited";
      policyRows.add(`${f.policy}\u0000${f.binding}\u0000${outcome}`);
      decisions.push({
        kind: "validating-policy",
        hook: f.policy,
        configuration: f.binding,
        outcome,
        code: outcome === "rejected" ? facts.code : undefined,
        message: clip(f.message),
      });
    }
  }
  if (
    status?.by === "policy" &&
    !policyRows.has(`${status.hook}\u0000${status.binding}\u0000rejected`)
  ) {
    decisions.push({
      kind: status.kind,
      hook: status.hook,
      configuration: status.binding,
      outcome: "rejected",
      code: facts.code,
      message: clip(status.message),
    });
  }

  for (const d of podSecurityDecisions(annotations, status, statusMessage ?? "", facts.code))
    decisions.push(d);

  return {
    auditID,
    stage,
    time: timeOf(e),
    request: facts,
    decisions,
    raw: decisions.length > 0 ? rawText(e, facts, annotations, source) : "",
  };
}

/** A webhook call's decision (fields in the order the API has always sent them). */
function call(c: CallDraft, outcome: DecisionOutcome, message: string): DecisionCall {
  return {
    kind: c.kind,
    hook: c.hook,
    configuration: c.configuration,
    round: c.round,
    index: c.index,
    outcome,
    message,
  };
}

/** Checks the envelope of an audit.k8s.io EventList; throws a plain Error describing what is wrong. */
function eventListItems(body: unknown): unknown[] {
  const list = obj(body);
  if (!list || list.kind !== "EventList" || !Array.isArray(list.items)) {
    throw new Error("expected an audit.k8s.io EventList with an items array");
  }
  return list.items;
}

/** Every event of an EventList that records at least one admission decision. */
export function parseEventList(body: unknown): ParsedAuditEvent[] {
  const out: ParsedAuditEvent[] = [];
  for (const item of eventListItems(body)) {
    const p = parseAuditEvent(item);
    if (p && p.decisions.length > 0) out.push(p);
  }
  return out;
}
