/**
 * A test case made from traffic: one admission request as a decision (its audit event) or a
 * Predict result saw it, the labels its namespace had as far as the dashboard knew, and what was
 * expected of the chain — the hooks and policies called and those skipped (with the predictor's
 * reason). The editor replays these cases against an edit; the admin downloads them as files.
 * Pure: the browser, the server and the command line share it.
 */
import type { AuditRequestFacts } from "@/lib/admission/audit/audit";
import { builtinDiscovery } from "@/lib/admission/report/resources";
import type { AdmissionRequest } from "@/lib/admission/model/request";
import type { Labels } from "@/lib/admission/model/selectors";
import type { DiscoveryResource } from "@/lib/admission/model/snapshot";
import type { Prediction } from "@/lib/admission/prediction/predict";
import type { HookIdentity } from "@/lib/admission/model/hook-identity";
import {
  type CaseSource,
  type TestCase,
  type TestExpect,
  type TestRequest,
} from "@/lib/admission/testing/format";
import type { AdmissionOperation } from "@/lib/k8s/types";
import { buildTestRequest, caseNamespaceLabels } from "@/lib/admission/testing/request";
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

/** The configuration a case is kept for: a webhook configuration or an admission policy. */
interface CaseOwner {
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
  /** The event already parsed from `rawEvent`, when the caller has it (it is not parsed again). */
  parsedEvent?: unknown,
): CaseRequest | undefined {
  if (!facts.operation || !facts.resource || !facts.version) return undefined;
  const stored = storedObject(rawEvent, facts, parsedEvent);
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
class CaseRequestError extends Error {}

/** A case's request in the test file format (lib/admission/testing/format.ts). */
export function testRequestOf(c: CaseRequest): TestRequest {
  const deleting = c.operation === "DELETE";
  return {
    operation: c.operation,
    resource: `${c.group}/${c.version}/${c.resource}`,
    ...(c.subresource ? { subresource: c.subresource } : {}),
    ...(c.name ? { name: c.name } : {}),
    ...(c.namespace ? { namespace: c.namespace } : {}),
    ...(deleting ? { oldObject: c.object } : { object: c.object }),
    ...(c.oldObject && !deleting ? { oldObject: c.oldObject } : {}),
    userInfo: { username: c.user, groups: c.groups },
    ...(c.dryRun ? { dryRun: true } : {}),
    ...(c.namespaceLabels ? { namespaceLabels: c.namespaceLabels } : {}),
  };
}

const AUTHENTICATED_GROUPS = (groups: readonly string[] | undefined) =>
  (groups ?? []).filter((g) => g !== AUTHENTICATED);

/**
 * The AdmissionRequest of a test file's request, built as the command line and the predict page
 * build one from parts (report/predict-report.ts buildRequest). Its namespace's labels are the
 * case's when it has them; otherwise the snapshot's at replay time (the predictor reads them).
 */
export function admissionRequestOf(
  t: TestRequest,
  discovery: readonly DiscoveryResource[] | undefined,
): AdmissionRequest {
  let request: AdmissionRequest;
  try {
    request = buildTestRequest(
      t,
      {
        discovery: discovery && discovery.length > 0 ? discovery : builtinDiscoveryOnce(),
        namespaces: {},
        namespacesFrom: undefined,
        identity: undefined,
      },
      { user: t.userInfo?.username || undefined, groups: AUTHENTICATED_GROUPS(t.userInfo?.groups) },
    ).request;
  } catch (e) {
    throw new CaseRequestError(e instanceof Error ? e.message : String(e));
  }
  if (caseNamespaceLabels(t) !== undefined) return request;
  // No labels of its own: the predictor reads the namespace's from the snapshot it predicts with.
  const { namespaceObject: _assumed, ...withoutLabels } = request;
  return withoutLabels;
}

/** The built-in resources, made once (a replay builds thousands of requests). */
let builtin: DiscoveryResource[] | undefined;
const builtinDiscoveryOnce = (): DiscoveryResource[] => (builtin ??= builtinDiscovery());

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

/**
 * A test case (the test file format) from a request and what the prediction expected of it.
 * `labelsFrom` is said in its description: labels at decision time are not kept by the cluster.
 */
export function testCaseOf(
  request: CaseRequest,
  expect: TestExpect,
  source: CaseSource,
  name = caseName(request),
): TestCase {
  const notes = [
    request.objectKnown
      ? undefined
      : "the audit event did not hold the object (Metadata level): only its name and namespace are known",
    request.namespaceLabelsFrom === "saved"
      ? "the namespace's labels are those the dashboard knew when the case was saved (labels at decision time are not kept)"
      : request.namespaceLabelsFrom === "unknown"
        ? "the namespace's labels were unknown when the case was saved: the configuration's are used"
        : undefined,
  ].filter((n): n is string => n !== undefined);
  return {
    name,
    ...(notes.length > 0 ? { description: `${notes.join("; ")}.` } : {}),
    source,
    request: testRequestOf(request),
    expect,
  };
}

/**
 * A request the predict page built (an AdmissionRequest) in the test file format, with the
 * namespace's labels the prediction used.
 */
export function testRequestOfAdmission(
  r: AdmissionRequest,
  namespaceLabels: Labels | null | undefined,
): TestRequest {
  const deleting = r.operation === "DELETE";
  const object = deleting ? r.oldObject : r.object;
  const ns = r.resource === "namespaces" && r.group === "" ? undefined : r.namespace || undefined;
  return {
    operation: r.operation,
    resource: `${r.group}/${r.version}/${r.resource}`,
    ...(r.subresource ? { subresource: r.subresource } : {}),
    ...(r.kind.kind && !object ? { kind: { ...r.kind } } : {}),
    ...(r.name ? { name: r.name } : {}),
    ...(ns ? { namespace: ns } : {}),
    ...(object ? (deleting ? { oldObject: { ...object } } : { object: { ...object } }) : {}),
    ...(!deleting && r.oldObject && r.operation === "UPDATE"
      ? { oldObject: { ...r.oldObject } }
      : {}),
    userInfo: {
      username: r.userInfo.username,
      groups: AUTHENTICATED_GROUPS(r.userInfo.groups),
    },
    ...(r.dryRun ? { dryRun: true } : {}),
    ...(ns && namespaceLabels ? { namespaceLabels: { ...namespaceLabels } } : {}),
  };
}

const OWNER_OF_SOURCE: Partial<Record<HookIdentity["source"], string>> = {
  MutatingWebhookConfiguration: "mutatingwebhookconfigurations",
  ValidatingWebhookConfiguration: "validatingwebhookconfigurations",
  MutatingAdmissionPolicy: "mutatingadmissionpolicies",
  ValidatingAdmissionPolicy: "validatingadmissionpolicies",
};

/**
 * The configurations a prediction's case may be kept for: those of the hooks it calls, then
 * those a selector or condition decided to skip (not the many no rule of which names it).
 */
export function ownersOfPrediction(p: Prediction): CaseOwner[] {
  const out = new Map<string, CaseOwner>();
  const add = (h: HookIdentity) => {
    const resource = OWNER_OF_SOURCE[h.source];
    if (resource && !h.origin)
      out.set(`${resource}/${h.configuration}`, { resource, name: h.configuration });
  };
  for (const c of p.calls) add(c.hook);
  for (const x of p.indeterminate) add(x.hook);
  for (const s of p.skips)
    if (
      s.reason.code !== "rules" &&
      s.reason.code !== "excluded" &&
      s.reason.code !== "not-reached"
    )
      add(s.hook);
  return [...out.values()];
}
