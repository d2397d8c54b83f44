/**
 * Turns audit.k8s.io/v1 events into admission decision rows. Pure and defensive: audit batches
 * arrive from the network, so every field is checked before it is read.
 */

/** One webhook call recorded in an event's admission annotations (reference §4.1). */
export interface AdmissionAnnotationOutcome {
  phase: "mutating" | "validating";
  configuration?: string;
  webhook?: string;
  /** Reinvocation round (0 or 1); validating calls are always round 0. */
  round: number;
  /** Mutating: index in the merged mutating list; validating failed-open: index among matched hooks. */
  index: number;
  mutated?: boolean;
  /** Set when the apiserver applied a patch from this call. */
  patchType?: string;
  /** The call failed and failurePolicy Ignore let the request through. */
  failedOpen?: boolean;
}

export interface AdmissionDecision {
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  user: string;
  groups: string[];
  resource?: {
    group: string;
    version: string;
    resource: string;
    subresource?: string;
    namespace?: string;
    name?: string;
  };
  /** HTTP status the client got, when the event carries a response status. */
  code?: number;
  message?: string;
  dryRun: boolean;
  stageTimestamp?: string;
  requestReceivedTimestamp?: string;
  annotations: Record<string, string>;
  outcomes: AdmissionAnnotationOutcome[];
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

function parseJsonObject(value: string): Record<string, unknown> | undefined {
  try {
    return obj(JSON.parse(value));
  } catch {
    return undefined;
  }
}

const OUTCOME_KEY =
  /^(mutation|patch|failed-open\.mutation|failed-open\.validating)\.webhook\.admission\.k8s\.io\/round_(\d+)_index_(\d+)$/;

function parseOutcomes(annotations: Record<string, string>): AdmissionAnnotationOutcome[] {
  const byCall = new Map<string, AdmissionAnnotationOutcome>();
  for (const [key, value] of Object.entries(annotations)) {
    const m = OUTCOME_KEY.exec(key);
    if (!m) continue;
    const kind = m[1] ?? "";
    const phase = kind === "failed-open.validating" ? "validating" : "mutating";
    const round = Number(m[2]);
    const index = Number(m[3]);
    const id = `${phase}/${round}/${index}`;
    const o = byCall.get(id) ?? { phase, round, index };
    if (kind === "mutation" || kind === "patch") {
      const parsed = parseJsonObject(value);
      o.configuration ??= str(parsed?.configuration);
      o.webhook ??= str(parsed?.webhook);
      if (kind === "mutation" && typeof parsed?.mutated === "boolean") o.mutated = parsed.mutated;
      if (kind === "patch") o.patchType = str(parsed?.patchType) ?? "JSONPatch";
    } else {
      // failed-open annotations carry the bare webhook name.
      o.webhook ??= value;
      o.failedOpen = true;
    }
    byCall.set(id, o);
  }
  return [...byCall.values()].sort(
    (a, b) =>
      (a.phase === b.phase ? 0 : a.phase === "mutating" ? -1 : 1) ||
      a.round - b.round ||
      a.index - b.index,
  );
}

/** Decodes one audit event; returns undefined for anything that is not one. */
export function decisionFromEvent(event: unknown): AdmissionDecision | undefined {
  const e = obj(event);
  if (!e) return undefined;
  const auditID = str(e.auditID);
  if (!auditID) return undefined;
  const user = obj(e.user);
  const ref = obj(e.objectRef);
  const status = obj(e.responseStatus);
  const rawAnnotations = obj(e.annotations) ?? {};
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(rawAnnotations))
    if (typeof v === "string") annotations[k] = v;
  const requestURI = str(e.requestURI) ?? "";
  return {
    auditID,
    stage: str(e.stage) ?? "",
    verb: str(e.verb) ?? "",
    requestURI,
    user: str(user?.username) ?? "",
    groups: Array.isArray(user?.groups)
      ? user.groups.filter((g): g is string => typeof g === "string")
      : [],
    resource: ref
      ? {
          group: str(ref.apiGroup) ?? "",
          version: str(ref.apiVersion) ?? "",
          resource: str(ref.resource) ?? "",
          subresource: str(ref.subresource),
          namespace: str(ref.namespace),
          name: str(ref.name),
        }
      : undefined,
    code: typeof status?.code === "number" ? status.code : undefined,
    message: str(status?.message),
    dryRun: /[?&]dryRun=All(&|$)/.test(requestURI),
    stageTimestamp: str(e.stageTimestamp),
    requestReceivedTimestamp: str(e.requestReceivedTimestamp),
    annotations,
    outcomes: parseOutcomes(annotations),
  };
}

/** Decodes an audit.k8s.io EventList; throws a plain Error describing what is wrong. */
export function decisionsFromEventList(body: unknown): AdmissionDecision[] {
  const list = obj(body);
  if (!list || list.kind !== "EventList" || !Array.isArray(list.items)) {
    throw new Error("expected an audit.k8s.io EventList with an items array");
  }
  const out: AdmissionDecision[] = [];
  for (const item of list.items) {
    const d = decisionFromEvent(item);
    if (d) out.push(d);
  }
  return out;
}
