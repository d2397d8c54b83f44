/**
 * A test case made from traffic: one admission request as a decision (its audit event) or a
 * Predict result saw it, the labels its namespace had as far as the dashboard knew, and what was
 * expected of the chain — the hooks and policies called and those skipped (with the predictor's
 * reason). The editor replays these cases against an edit; the admin downloads them as files.
 * Pure: the browser, the server and the command line share it.
 */
import type { AuditRequestFacts } from "@/lib/admission/audit/audit";
import { buildRequest, type RequestSpec } from "@/lib/admission/report/predict-report";
import { builtinDiscovery } from "@/lib/admission/report/resources";
import type { AdmissionRequest } from "@/lib/admission/model/request";
import type { Labels } from "@/lib/admission/model/selectors";
import type { DiscoveryResource } from "@/lib/admission/model/snapshot";
import type { JsonObject } from "@/lib/admission/validate/json";
import type { Prediction } from "@/lib/admission/prediction/predict";
import type { AdmissionOperation } from "@/lib/k8s/types";
import { AUTHENTICATED, storedObject, stub } from "@/lib/decisions/predict-request";

/**
 * Where the namespace's labels of a case come from: the labels the dashboard knew when the case
 * was saved (`saved`: the cluster keeps no history, so these are the labels at save time, not
 * necessarily at decision time), the namespace's labels now (`current`: a decision replayed
 * from the feed), or none (a cluster-scoped request, or a namespace the dashboard does not know).
 */
export type LabelsOrigin = "saved" | "current" | "unknown" | "cluster-scoped";

/** The request of a case, as its parts. */
export interface CaseRequest {
  operation: AdmissionOperation;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** The object (CREATE, UPDATE; the deleted object for DELETE), or what is known of it. */
  object: Record<string, unknown>;
  /** Whether `object` is the whole object (else only its apiVersion, name and namespace). */
  objectKnown: boolean;
  oldObject?: Record<string, unknown>;
  user: string;
  groups: string[];
  dryRun: boolean;
  /** The namespace's labels (undefined: the snapshot's labels at replay time are used). */
  namespaceLabels?: Record<string, string>;
  namespaceLabelsFrom: LabelsOrigin;
}

/** A hook or policy binding as a case names it: `<source>:<key>` (hookKey) with a label. */
export interface CaseHook {
  key: string;
  /** e.g. `ValidatingWebhookConfiguration team-a / pods.example.com`. */
  label: string;
}

/** What the case expects of the admission chain. */
export interface CaseExpectations {
  /** Called, in the apiserver's order (round 0). */
  called: CaseHook[];
  /** Skipped, with the reason as the predictor gave it. */
  skipped: Array<CaseHook & { reason: string }>;
  /** Admission refuses the request before or at a hook (status, message), when it does. */
  denied?: { status: number; message: string };
}

/** One saved case. */
export interface SavedCase {
  name: string;
  /** Where it came from: `decision <auditID>` or `predict`. */
  source: string;
  /** When it was made (ms since the epoch). */
  created: number;
  request: CaseRequest;
  expect: CaseExpectations;
}

/** The configuration a case is kept for: a webhook configuration, a policy or a binding. */
export interface CaseOwner {
  resource: string;
  name: string;
}

/**
 * The request of a decision: its facts from the audit event and its object when the event holds
 * one (Request level and above); `labels` are the namespace's labels as the dashboard knows them.
 * Undefined when the event names no admission request.
 */
export function caseRequestOfDecision(
  facts: AuditRequestFacts,
  rawEvent: string | undefined,
  labels: Labels | undefined,
  labelsFrom: "saved" | "current",
): CaseRequest | undefined {
  if (!facts.operation || !facts.resource || !facts.version) return undefined;
  const stored = storedObject(rawEvent, facts);
  const namespace = facts.resource === "namespaces" ? "" : facts.namespace;
  return {
    operation: facts.operation,
    group: facts.group,
    version: facts.version,
    resource: facts.resource,
    subresource: facts.subresource,
    namespace,
    name: facts.name,
    object: stored ?? stub(facts),
    objectKnown: stored !== undefined,
    user: facts.user,
    groups: facts.groups.filter((g) => g !== AUTHENTICATED),
    dryRun: facts.dryRun,
    ...(namespace !== "" && labels ? { namespaceLabels: { ...labels } } : {}),
    namespaceLabelsFrom:
      namespace === "" ? "cluster-scoped" : labels ? labelsFrom : ("unknown" as const),
  };
}

/** Why a case's request could not be built (an unknown resource, a malformed object). */
export class CaseRequestError extends Error {}

/**
 * The AdmissionRequest of a case, built as the command line and the predict page build one from
 * parts (report/predict-report.ts buildRequest). Its namespace's labels are the case's when it
 * has them; otherwise the snapshot's at replay time (the predictor reads them there).
 */
export function admissionRequestOf(
  c: CaseRequest,
  discovery: readonly DiscoveryResource[] | undefined,
): AdmissionRequest {
  const spec: RequestSpec = {
    operation: c.operation,
    subresource: c.subresource,
    resource: `${c.group || "core"}/${c.version}/${c.resource}`,
    namespace: c.namespace === "" ? undefined : c.namespace,
    name: c.name === "" ? undefined : c.name,
    dryRun: c.dryRun,
    namespaceLabels: c.namespaceLabels,
    user: c.user || undefined,
    groups: c.groups,
  };
  let request: AdmissionRequest;
  try {
    request = buildRequest(spec, {
      object: c.object as JsonObject,
      oldObject: c.oldObject as JsonObject | undefined,
      discovery: discovery && discovery.length > 0 ? discovery : builtinDiscovery(),
      namespaces: {},
      namespacesFrom: undefined,
      identity: undefined,
    }).request;
  } catch (e) {
    throw new CaseRequestError(e instanceof Error ? e.message : String(e));
  }
  if (c.namespaceLabels !== undefined) return request;
  // No labels of its own: the predictor reads the namespace's from the snapshot it predicts with.
  const { namespaceObject: _assumed, ...withoutLabels } = request;
  return withoutLabels;
}

const label = (h: { source: string; configuration: string; name: string }) =>
  `${h.source} ${h.configuration} / ${h.name}`;

/**
 * The expectations of a prediction: the certain calls in order, the skips with their reasons
 * (`why` gives a skip's sentence: the Explainer's), and the refusal.
 */
export function expectationsOf(
  p: Prediction,
  why: (skip: Prediction["skips"][number]) => string,
): CaseExpectations {
  const failure = p.rejectedBeforeHooks ?? p.failure;
  return {
    called: p.calls.filter((c) => c.round === 0).map((c) => ({ key: c.key, label: label(c.hook) })),
    skipped: p.skips.map((s) => ({ key: s.key, label: label(s.hook), reason: why(s) })),
    ...(failure ? { denied: { status: failure.status, message: failure.message } } : {}),
  };
}

const VERB: Record<AdmissionOperation, string> = {
  CREATE: "create",
  UPDATE: "update",
  DELETE: "delete",
  CONNECT: "connect",
};

/** A case's default name: `create pods team-a/web-1`. */
export function caseName(r: CaseRequest): string {
  const res = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  const obj = r.namespace ? `${r.namespace}/${r.name || "(generated)"}` : r.name || "(generated)";
  return `${VERB[r.operation]} ${res} ${obj}`;
}

/** A case from a request and what the prediction expected of it. */
export function savedCase(
  request: CaseRequest,
  expect: CaseExpectations,
  source: string,
  created: number,
  name = caseName(request),
): SavedCase {
  return { name, source, created, request, expect };
}
