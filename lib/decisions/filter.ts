/**
 * The decision feed's filter: one shape for the page URL, the list and stream API, the SQL query
 * and the live stream's per-connection match. Pure.
 */
import { z } from "zod";
import {
  DECISION_OUTCOMES,
  type DecisionOutcome,
  type DecisionRecord,
  type DeciderKind,
} from "@/lib/admission/audit";

const name = z.string().trim().min(1).max(253);
const ms = z.coerce.number().int().min(0).max(8_640_000_000_000_000);

/** Filter fields, as they appear in URLs (`?hook=…&outcome=denied&outcome=timeout&from=…`). */
export const decisionFilterSchema = z.object({
  hook: name.optional(),
  policy: name.optional(),
  outcome: z.array(z.enum(DECISION_OUTCOMES as [DecisionOutcome, ...DecisionOutcome[]])).max(9),
  namespace: name.optional(),
  user: name.optional(),
  resource: name.optional(),
  operation: z.enum(["CREATE", "UPDATE", "DELETE", "CONNECT"]).optional(),
  /** Inclusive lower and exclusive upper bound of the decision time, ms since the epoch. */
  from: ms.optional(),
  to: ms.optional(),
});

export type DecisionFilter = z.infer<typeof decisionFilterSchema>;

export const FILTER_FIELDS = [
  "hook",
  "policy",
  "namespace",
  "user",
  "resource",
  "operation",
  "from",
  "to",
] as const;

const WEBHOOK_KINDS: readonly DeciderKind[] = ["mutating-webhook", "validating-webhook", "webhook"];
const POLICY_KINDS: readonly DeciderKind[] = ["validating-policy", "mutating-policy"];

/** Which decider kinds a `hook` or `policy` filter matches. */
export const deciderKinds = { webhook: WEBHOOK_KINDS, policy: POLICY_KINDS } as const;

/** Reads a filter from URL search parameters; throws a ZodError on bad input. */
export function parseDecisionFilter(params: URLSearchParams): DecisionFilter {
  const raw: Record<string, unknown> = { outcome: params.getAll("outcome") };
  for (const f of FILTER_FIELDS) {
    const v = params.get(f);
    if (v !== null && v !== "") raw[f] = v;
  }
  return decisionFilterSchema.parse(raw);
}

/** Like parseDecisionFilter, but drops invalid fields instead of throwing (for page URLs). */
export function readDecisionFilterLoosely(params: URLSearchParams): DecisionFilter {
  const out: DecisionFilter = {
    outcome: params
      .getAll("outcome")
      .filter((o): o is DecisionOutcome => (DECISION_OUTCOMES as string[]).includes(o)),
  };
  for (const f of FILTER_FIELDS) {
    const v = params.get(f);
    if (v === null || v === "") continue;
    const one = decisionFilterSchema.shape[f].safeParse(v);
    if (one.success && one.data !== undefined) Object.assign(out, { [f]: one.data });
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
  if (f.from !== undefined && d.time < f.from) return false;
  if (f.to !== undefined && d.time >= f.to) return false;
  return true;
}
