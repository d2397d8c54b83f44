/**
 * What a replay predicts again: the kept cases of the configuration being edited and the last
 * requests the decision feed holds for its hooks, each made into a ReplayItem; and which
 * configurations' cases and which hooks' decisions an edit concerns. Pure.
 */
import type { AuditRequestFacts } from "@/lib/admission/audit/audit";
import type { DiscoveryResource } from "@/lib/admission/model/snapshot";
import type { TestCase } from "@/lib/admission/testing/format";
import type { DecisionFilter } from "@/lib/decisions/filter";
import { admissionRequestOf, caseName, caseRequestOfDecision, testRequestOf } from "./case";
import type { EditableResource } from "./edit-snapshot";
import type { ReplayItem } from "./replay";

/** A configuration cases are kept for. */
export interface Owner {
  resource: string;
  name: string;
}

type Obj = Record<string, unknown> | undefined;

function strAt(o: Obj, ...path: string[]): string {
  let v: unknown = o;
  for (const k of path) v = v && typeof v === "object" ? (v as Record<string, unknown>)[k] : "";
  return typeof v === "string" ? v : "";
}

function webhookNames(o: Obj): string[] {
  const ws = o?.webhooks;
  return Array.isArray(ws)
    ? ws.flatMap((w: unknown) => {
        const n = strAt(w as Obj, "name");
        return n ? [n] : [];
      })
    : [];
}

const POLICY_OF_BINDING = {
  validatingadmissionpolicybindings: "validatingadmissionpolicies",
  mutatingadmissionpolicybindings: "mutatingadmissionpolicies",
} as const;

/**
 * The configurations whose kept cases an edit replays: the webhook configuration or policy
 * itself; for a binding, the policy it binds (as stored and as edited).
 */
export function ownersOf(
  resource: EditableResource,
  name: string,
  edited: Obj,
  stored: Obj,
): Owner[] {
  if (
    resource === "validatingadmissionpolicybindings" ||
    resource === "mutatingadmissionpolicybindings"
  ) {
    const policies = new Set(
      [strAt(edited, "spec", "policyName"), strAt(stored, "spec", "policyName")].filter(Boolean),
    );
    return [...policies].map((p) => ({ resource: POLICY_OF_BINDING[resource], name: p }));
  }
  return name ? [{ resource, name }] : [];
}

/**
 * The decision filters of the hooks an edit concerns: each webhook of the configuration (as
 * stored and as edited) in that configuration; the policy; for a binding, the policy it binds.
 */
export function feedFiltersOf(
  resource: EditableResource,
  name: string,
  edited: Obj,
  stored: Obj,
): DecisionFilter[] {
  if (
    resource === "mutatingwebhookconfigurations" ||
    resource === "validatingwebhookconfigurations"
  ) {
    const phase = resource === "mutatingwebhookconfigurations" ? "mutating" : "validating";
    const hooks = new Set([...webhookNames(stored), ...webhookNames(edited)]);
    return [...hooks].map((hook) => ({ hook, configuration: name, phase, outcome: [] }));
  }
  const phase = resource.startsWith("mutating") ? "mutating" : "validating";
  return ownersOf(resource, name, edited, stored).map((o) => ({
    policy: o.name,
    phase,
    outcome: [],
  }));
}

/** A decision of the feed, with its event's text. */
export interface FeedRequest {
  id: number;
  time: number;
  auditID: string;
  /** Undefined when the event cannot be read (the request is then not replayed). */
  request: AuditRequestFacts | undefined;
  rawEvent: string | undefined;
  /** The event parsed from `rawEvent`, when the store has already parsed it. */
  event?: unknown;
}

/**
 * The newest `limit` requests of the rows (an event counted once, however many of its decisions
 * the filters found).
 */
export function newestRequests(rows: readonly FeedRequest[], limit: number): FeedRequest[] {
  const seen = new Set<string>();
  const out: FeedRequest[] = [];
  for (const r of [...rows].sort((a, b) => b.time - a.time || b.id - a.id)) {
    if (out.length >= limit) break;
    if (seen.has(r.auditID)) continue;
    seen.add(r.auditID);
    out.push(r);
  }
  return out;
}

/**
 * Feed requests as replay items: the request from the audit event (its object when the event
 * holds it), the namespace's labels the snapshot has now (labels at decision time are not kept).
 * Requests that cannot be built are counted in `unreadable`.
 */
export function feedItems(
  rows: readonly FeedRequest[],
  discovery: readonly DiscoveryResource[] | undefined,
): { items: ReplayItem[]; unreadable: number } {
  const items: ReplayItem[] = [];
  let unreadable = 0;
  for (const r of rows) {
    const c =
      r.request && caseRequestOfDecision(r.request, r.rawEvent, undefined, "current", r.event);
    if (!c) {
      unreadable++;
      continue;
    }
    try {
      items.push({
        id: `decision:${r.id}`,
        source: "feed",
        title: caseName(c),
        time: r.time,
        request: admissionRequestOf(testRequestOf(c), discovery),
        labelsFrom: c.namespace === "" ? "cluster-scoped" : "current",
        objectKnown: c.objectKnown,
      });
    } catch {
      unreadable++;
    }
  }
  return { items, unreadable };
}

/** Kept cases as replay items (their own namespace labels when they have them). */
export function caseItems(
  cases: ReadonlyArray<{ id: number; created: number; case: TestCase }>,
  discovery: readonly DiscoveryResource[] | undefined,
): { items: ReplayItem[]; unreadable: number } {
  const items: ReplayItem[] = [];
  let unreadable = 0;
  for (const k of cases) {
    const t = k.case.request;
    try {
      items.push({
        id: `case:${k.id}`,
        source: "case",
        title: k.case.name,
        time: k.created,
        request: admissionRequestOf(t, discovery),
        labelsFrom: !t.namespace
          ? "cluster-scoped"
          : t.namespaceLabels || t.namespaceObject
            ? "saved"
            : "current",
        objectKnown: !(k.case.description ?? "").includes("did not hold the object"),
      });
    } catch {
      unreadable++;
    }
  }
  return { items, unreadable };
}
