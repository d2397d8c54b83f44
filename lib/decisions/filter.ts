/**
 * The decision feed's filter: one shape for the page URL, the list and stream API, the SQL query
 * and the live stream's per-connection match. Pure.
 */
import {
  DECISION_OUTCOMES,
  type DecisionOutcome,
  type DecisionRecord,
  type DeciderKind,
} from "@/lib/admission/audit/audit";
import { auditIDToFind } from "@/lib/admission/audit/audit-id";
import { KubeApiError } from "@/lib/k8s/errors";
import { dashboardError } from "@/lib/api/contract";

const OPERATIONS = ["CREATE", "UPDATE", "DELETE", "CONNECT"] as const;
const PHASES = ["mutating", "validating"] as const;

/**
 * Filter fields, as they appear in URLs (`?hook=…&outcome=denied&outcome=timeout&from=…`).
 * Checked by hand rather than with a schema library: this module runs in the feed page's
 * first-load JavaScript.
 */
export interface DecisionFilter {
  hook?: string;
  policy?: string;
  outcome: DecisionOutcome[];
  namespace?: string;
  user?: string;
  resource?: string;
  operation?: (typeof OPERATIONS)[number];
  /** One request's decisions (the Audit-ID the apiserver gave it, in its stored form). */
  auditID?: string;
  /**
   * One admission phase. With `policy`: that phase's policies only (a ValidatingAdmissionPolicy
   * and a MutatingAdmissionPolicy may share a name). With `hook`: decisions of that phase's
   * webhooks, and those whose phase the event does not tell (kind `webhook`: a denial or error
   * read from the response status). With neither: both.
   */
  phase?: (typeof PHASES)[number];
  /**
   * Decisions that name this webhook configuration or policy binding, or name none (a denial or
   * error read from the response status, a validating fail-open: they may be its). A webhook
   * name is often in several configurations (cert-manager's is in a mutating and a validating one).
   */
  configuration?: string;
  /** Inclusive lower and exclusive upper bound of the decision time, ms since the epoch. */
  from?: number;
  to?: number;
}

const FILTER_FIELDS = [
  "hook",
  "policy",
  "namespace",
  "user",
  "resource",
  "operation",
  "auditID",
  "phase",
  "configuration",
  "from",
  "to",
] as const;

/** Fields the feed page's form does not show: read from an API query, not from the page's URL. */
const API_ONLY_FIELDS: ReadonlySet<Field> = new Set(["configuration"]);

type Field = (typeof FILTER_FIELDS)[number];

/**
 * Longest user a filter takes. User names have no limit of their own, and a service account's is
 * `system:serviceaccount:<namespace>:<name>`: up to 339 characters (a 63-character namespace, a
 * 253-character name); an OIDC user is its issuer's claim with a prefix.
 */
const MAX_USER = 1024;

/** One field's value, or an error message. */
function readField(field: Field, raw: string): { value: string | number } | { error: string } {
  const v = raw.trim();
  if (field === "from" || field === "to") {
    if (!/^\d{1,16}$/.test(v)) return { error: `${field}: milliseconds since the epoch` };
    return { value: Number(v) };
  }
  if (field === "operation") {
    return (OPERATIONS as readonly string[]).includes(v)
      ? { value: v }
      : { error: `operation: one of ${OPERATIONS.join(", ")}` };
  }
  if (field === "phase") {
    return (PHASES as readonly string[]).includes(v)
      ? { value: v }
      : { error: `phase: one of ${PHASES.join(", ")}` };
  }
  const max = field === "user" ? MAX_USER : 253;
  if (v.length === 0 || v.length > max) return { error: `${field}: 1 to ${max} characters` };
  return { value: field === "auditID" ? auditIDToFind(v) : v };
}

function isOutcome(o: string): o is DecisionOutcome {
  return (DECISION_OUTCOMES as readonly string[]).includes(o);
}

/** Reads a filter from URL search parameters; bad input is a 400 naming the field. */
export function parseDecisionFilter(params: URLSearchParams): DecisionFilter {
  const errors: string[] = [];
  const outcomes = params.getAll("outcome");
  const bad = outcomes.filter((o) => !isOutcome(o));
  if (bad.length > 0) errors.push(`outcome: one of ${DECISION_OUTCOMES.join(", ")}`);
  if (outcomes.length > DECISION_OUTCOMES.length) errors.push("outcome: too many");
  const out: DecisionFilter = { outcome: outcomes.filter(isOutcome) };
  for (const f of FILTER_FIELDS) {
    const raw = params.get(f);
    if (raw === null || raw === "") continue;
    const r = readField(f, raw);
    if ("error" in r) errors.push(r.error);
    else Object.assign(out, { [f]: r.value });
  }
  if (errors.length > 0) {
    throw new KubeApiError(
      dashboardError({
        status: 400,
        reason: "BadRequest",
        message: `bad decision filter: ${errors.join("; ")}`,
      }),
    );
  }
  return out;
}

/**
 * Like parseDecisionFilter, but drops invalid fields instead of refusing (for the feed page's
 * URL), and the fields its form does not show, which could not be seen or cleared there.
 */
export function readDecisionFilterLoosely(params: URLSearchParams): DecisionFilter {
  const out: DecisionFilter = {
    outcome: params.getAll("outcome").filter(isOutcome).slice(0, DECISION_OUTCOMES.length),
  };
  for (const f of FILTER_FIELDS) {
    const raw = params.get(f);
    if (raw === null || raw === "" || API_ONLY_FIELDS.has(f)) continue;
    const r = readField(f, raw);
    if ("value" in r) Object.assign(out, { [f]: r.value });
  }
  return out;
}

/** Writes a filter as URL search parameters (stable order, empty fields left out). */
export function decisionFilterParams(f: DecisionFilter): URLSearchParams {
  const p = new URLSearchParams();
  for (const field of FILTER_FIELDS) {
    const v = f[field];
    if (v !== undefined && v !== "") p.set(field, String(v));
  }
  for (const o of f.outcome) p.append("outcome", o);
  return p;
}

const WEBHOOK_KINDS: readonly DeciderKind[] = ["mutating-webhook", "validating-webhook", "webhook"];
/** The admission policies, and the in-tree PodSecurity plugin (its Pod Security Standards). */
const POLICY_KINDS: readonly DeciderKind[] = [
  "validating-policy",
  "mutating-policy",
  "pod-security",
];

/** Which decider kinds a `hook` or `policy` filter matches. */
export const deciderKinds = { webhook: WEBHOOK_KINDS, policy: POLICY_KINDS } as const;

/** The decision kinds a filter's `phase` admits (see DecisionFilter.phase). */
export function phaseKinds(f: DecisionFilter): DecisionRecord["kind"][] {
  if (f.phase === undefined) return [];
  // (PodSecurity evaluates in the validating phase.)
  const plugin: DecisionRecord["kind"][] = f.phase === "validating" ? ["pod-security"] : [];
  if (f.policy !== undefined) return [`${f.phase}-policy`, ...plugin];
  if (f.hook !== undefined) return [`${f.phase}-webhook`, "webhook"];
  return [`${f.phase}-webhook`, "webhook", `${f.phase}-policy`, ...plugin];
}

/** Whether a stored decision passes the filter (the live stream's check; SQL does the same). */
export function matchesDecisionFilter(d: DecisionRecord, f: DecisionFilter): boolean {
  if (f.hook !== undefined && (d.hook !== f.hook || !WEBHOOK_KINDS.includes(d.kind))) return false;
  if (f.policy !== undefined && (d.hook !== f.policy || !POLICY_KINDS.includes(d.kind)))
    return false;
  if (f.outcome.length > 0 && !f.outcome.includes(d.outcome)) return false;
  if (f.namespace !== undefined && d.request.namespace !== f.namespace) return false;
  if (f.user !== undefined && d.request.user !== f.user) return false;
  if (f.resource !== undefined && d.request.resource !== f.resource) return false;
  if (f.operation !== undefined && d.request.operation !== f.operation) return false;
  if (f.auditID !== undefined && d.auditID !== f.auditID) return false;
  if (f.phase !== undefined && !phaseKinds(f).includes(d.kind)) return false;
  if (
    f.configuration !== undefined &&
    d.configuration !== "" &&
    d.configuration !== f.configuration
  )
    return false;
  if (f.from !== undefined && d.time < f.from) return false;
  if (f.to !== undefined && d.time >= f.to) return false;
  return true;
}
