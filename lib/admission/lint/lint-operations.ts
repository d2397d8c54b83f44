/**
 * Operational checks: L9 (timeout budget), L10 (legacy sideEffects), L13 (reinvocation),
 * L14 (fail-open hiding outages), L15 (order-sensitive names), L19 (names that write the
 * apiserver's own audit records).
 */
import { APISERVER_ANNOTATION_PREFIXES } from "@/lib/admission/audit/audit-keys";
import {
  webhookObject,
  webhookPath,
  type LintContext,
  type LintFinding,
} from "@/lib/admission/lint/lint-types";

/** L9: per-hook timeouts above 10s, serial budgets near --request-timeout, p99 near the timeout. */
export function checkTimeouts(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  const all = [...ctx.compiled.mutating, ...ctx.compiled.validating];
  for (const h of all) {
    const p99 = ctx.input.metrics?.p99LatencySeconds?.[h.id.name];
    if (h.timeoutSeconds > 10 || (p99 !== undefined && p99 > 0.8 * h.timeoutSeconds)) {
      out.push({
        id: "L9",
        severity: "medium",
        title: "Timeout budget",
        objects: [webhookObject(h)],
        explanation:
          p99 !== undefined && p99 > 0.8 * h.timeoutSeconds
            ? `${h.id.name}: p99 latency ${p99}s is close to timeoutSeconds ${h.timeoutSeconds}s`
            : `${h.id.name} has timeoutSeconds ${h.timeoutSeconds}; every matching write can wait that long${h.timeoutSeconds > 15 ? " (above 15s)" : ""}`,
        fix: {
          description: "use a small timeout",
          target: webhookObject(h),
          jsonPatch: [{ op: "add", path: webhookPath(h, "timeoutSeconds"), value: 5 }],
        },
      });
    }
  }
  // Worst case per operation when every hook matches: serial mutating (×2 when reinvocable) + max validating.
  const limit = ctx.input.requestTimeoutSeconds ?? 60;
  let serial = 0;
  for (const h of ctx.compiled.mutating)
    serial += h.timeoutSeconds * (h.reinvocationPolicy === "IfNeeded" ? 2 : 1);
  let par = 0;
  for (const h of ctx.compiled.validating) par = Math.max(par, h.timeoutSeconds);
  if (serial + par > 0.8 * limit) {
    out.push({
      id: "L9",
      severity: "medium",
      title: "Admission timeouts can exceed the request timeout",
      objects: ctx.compiled.mutating.map((h) => webhookObject(h)),
      explanation: `If every mutating webhook matched one request, their serial timeouts (${serial}s incl. reinvocation) plus the largest validating timeout (${par}s) approach --request-timeout (${limit}s). Use predict for per-request totals.`,
      fix: undefined,
    });
  }
  return out;
}

/** L10: sideEffects Unknown/Some fail every matching dry run with 400. */
export function checkSideEffects(ctx: LintContext): LintFinding[] {
  return [...ctx.compiled.mutating, ...ctx.compiled.validating]
    .filter((h) => h.sideEffects === "Unknown" || h.sideEffects === "Some")
    .map((h) => ({
      id: "L10" as const,
      severity: "medium" as const,
      title: "Legacy sideEffects",
      objects: [webhookObject(h)],
      explanation: `${h.id.name} has sideEffects ${h.sideEffects ?? ""}: every matching dry-run request (kubectl --dry-run=server, Portcullis's own dry run) fails with 400 "does not support dry run", even with failurePolicy Ignore.`,
      fix: {
        description: "declare None or NoneOnDryRun once the webhook honours dryRun",
        target: webhookObject(h),
        jsonPatch: [{ op: "add" as const, path: webhookPath(h, "sideEffects"), value: "None" }],
      },
    }));
}

/** L13: IfNeeded reinvocation requires idempotent webhooks. */
export function checkReinvocation(ctx: LintContext): LintFinding[] {
  return ctx.compiled.mutating
    .filter((h) => h.reinvocationPolicy === "IfNeeded")
    .map((h) => ({
      id: "L13" as const,
      severity: "info" as const,
      title: "Reinvocation requires idempotence",
      objects: [webhookObject(h)],
      explanation: `${h.id.name} may be called a second time in round 1 when a later hook changes the object; its patch must be idempotent, and two webhooks reverting each other loop until round 1 ends.`,
      fix: undefined,
    }));
}

/** L14: Ignore webhooks that are failing open (needs metrics). */
export function checkFailOpen(ctx: LintContext): LintFinding[] {
  const rates = ctx.input.metrics?.failOpenPerSecond;
  if (!rates) return [];
  return [...ctx.compiled.mutating, ...ctx.compiled.validating]
    .filter((h) => h.failurePolicy === "Ignore" && (rates[h.id.name] ?? 0) > 0)
    .map((h) => ({
      id: "L14" as const,
      severity: "medium" as const,
      title: "Fail-open is hiding an outage",
      objects: [webhookObject(h)],
      explanation: `${h.id.name} fails open ${rates[h.id.name]}/s (apiserver_admission_webhook_fail_open_count): requests are admitted without it.`,
      fix: undefined,
    }));
}

/** L15: mutating configurations whose byte-wise order may surprise (digits, case). */
export function checkNameOrder(ctx: LintContext): LintFinding[] {
  const names = [...new Set(ctx.compiled.mutating.map((h) => h.id.configuration))];
  const surprising = names.some((a, i) =>
    names.slice(i + 1).some((b) => {
      const na = /^(\d+)/.exec(a)?.[1];
      const nb = /^(\d+)/.exec(b)?.[1];
      if (na !== undefined && nb !== undefined && na.length !== nb.length) return true;
      return a.toLowerCase() !== a || b.toLowerCase() !== b;
    }),
  );
  if (!surprising) return [];
  return [
    {
      id: "L15",
      severity: "info",
      title: "Order-sensitive configuration names",
      objects: names.map((name) => ({ kind: "MutatingWebhookConfiguration", name })),
      explanation: `Mutating configurations run in byte-wise name order: ${names.join(" → ")}. Numeric prefixes of different lengths ("10-" before "9-") and upper case (before lower case) often surprise.`,
      fix: { description: "zero-pad numeric prefixes (e.g. 009-, 010-) and use lower case" },
    },
  ];
}

/** What the apiserver records under `name/`, when it is one of its own prefixes. */
const recordsUnder = (name: string) =>
  APISERVER_ANNOTATION_PREFIXES.find((p) => p.name === name)?.records;

const forgeryExplanation = (what: string, name: string, records: string) =>
  `${what} "${name}" files its audit annotations under "${name}/", where the apiserver records ${records}. It can write records the decision feed (and every other reader of the audit log) takes for the apiserver's own, and, writing first, keep the real ones out: an audit annotation is never overwritten.`;

/**
 * L19: a webhook, or a ValidatingAdmissionPolicy with audit annotations, named exactly like a
 * prefix the apiserver files its own admission records under (APISERVER_ANNOTATION_PREFIXES).
 * The apiserver accepts such names (a webhook name needs only three DNS labels).
 */
export function checkReservedAnnotationNames(ctx: LintContext): LintFinding[] {
  const out: LintFinding[] = [];
  for (const h of [...ctx.compiled.mutating, ...ctx.compiled.validating]) {
    const records = recordsUnder(h.id.name);
    if (records === undefined) continue;
    out.push({
      id: "L19",
      severity: "high",
      title: "Webhook named like the apiserver's own audit records",
      objects: [webhookObject(h)],
      explanation: forgeryExplanation("The webhook", h.id.name, records),
      fix: { description: "rename the webhook to a name under a domain of its own" },
    });
  }
  for (const p of ctx.input.snapshot.validatingAdmissionPolicies ?? []) {
    const name = p.metadata?.name ?? "";
    const records = recordsUnder(name);
    if (records === undefined || (p.spec?.auditAnnotations?.length ?? 0) === 0) continue;
    out.push({
      id: "L19",
      severity: "high",
      title: "Policy named like the apiserver's own audit records",
      objects: [{ kind: "ValidatingAdmissionPolicy", name }],
      explanation: forgeryExplanation("The policy", name, records),
      fix: { description: "rename the policy (its bindings name it) to a name of its own" },
    });
  }
  return out;
}
