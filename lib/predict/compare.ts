/**
 * The prediction beside the apiserver's verdict on a dry run of the same request: do they agree,
 * and which hooks a dry run treats differently (sideEffects). Pure.
 */
import type { CompiledSnapshot } from "@/lib/admission/matching/compile";
import type { PredictReport } from "@/lib/admission/report/predict-report";
import type { DryRunVerdict } from "@/lib/api/predict";
import type { DecisionRecord } from "@/lib/admission/audit/audit";
import { readStatusMessage } from "@/lib/admission/audit/status-message";
import { sameMessage } from "@/lib/admission/pod-security/admission";

/** One statement about prediction versus verdict; `agrees: false` is a mismatch to highlight. */
export interface Comparison {
  agrees: boolean;
  message: string;
}

/** The hook a denial names: a webhook's name, or a policy's `policy ← binding`. */
export function denierOf(message: string): { webhook?: string; policy?: string; binding?: string } {
  const r = readStatusMessage(message);
  if (r?.by === "webhook") return { webhook: r.hook };
  if (r?.by === "policy") return { policy: r.hook, binding: r.binding };
  return {};
}

/**
 * Compares the prediction of the dry-run request (`dry`: the same request with dryRun set) with
 * the apiserver's verdict.
 */
export function compareVerdict(dry: PredictReport, verdict: DryRunVerdict): Comparison[] {
  const out: Comparison[] = [];
  if (verdict.outcome === "unsupported") return out;
  const before = dry.rejectedBeforeHooks;
  if (before) {
    const by = before.plugin === "routing" ? "the apiserver's router" : before.plugin;
    out.push(
      verdict.outcome !== "allowed" &&
        verdict.status === before.status &&
        verdict.message === before.message
        ? { agrees: true, message: `rejected as predicted, by ${by} before any hook` }
        : {
            agrees: false,
            message: `predicted a rejection by ${by} before any hook (${before.status} ${before.message}); the apiserver ${verdict.outcome === "allowed" ? "admitted the request" : `said: ${verdict.status} ${verdict.message}`}`,
          },
    );
    return out;
  }
  const ps = dry.podSecurity;
  if (ps?.rejects && ps.rejection) {
    const { status, message } = ps.rejection;
    out.push(
      verdict.outcome !== "allowed" &&
        verdict.status === status &&
        sameMessage(message, verdict.message)
        ? {
            agrees: true,
            message: "rejected as predicted, by PodSecurity before the validating hooks",
          }
        : {
            agrees: false,
            message: `predicted a rejection by PodSecurity (${status} ${message}); the apiserver ${verdict.outcome === "allowed" ? "admitted the request" : `said: ${verdict.status} ${verdict.message}`}`,
          },
    );
    return out;
  }
  const predictedFailure = dry.failure;
  if (verdict.outcome === "allowed") {
    out.push(
      predictedFailure
        ? {
            agrees: false,
            message: `predicted a rejection at ${predictedFailure.hook.name} (${predictedFailure.message}), but the apiserver admitted the request`,
          }
        : { agrees: true, message: "admitted, as predicted" },
    );
    return out;
  }
  if (predictedFailure) {
    // A policy stage names any one of its failing bindings: whichever the apiserver named is the
    // one to compare. Policy errors differ in their prefix by plugin ("policy 'p'" /
    // "ValidatingAdmissionPolicy 'p'"); what follows "denied request: " is the error itself.
    const candidates = [predictedFailure, ...dry.alsoFailing];
    const tail = (m: string) => {
      const at = m.indexOf("denied request: ");
      return at < 0 ? m : m.slice(at + "denied request: ".length);
    };
    const d = denierOf(verdict.message);
    const named =
      candidates.find((f) => verdict.message === f.message) ??
      (d.policy !== undefined
        ? candidates.find((f) => d.policy === f.hook.configuration && d.binding === f.hook.name)
        : candidates.find((f) => verdict.message.includes(tail(f.message))));
    out.push(
      named
        ? { agrees: true, message: `rejected as predicted, at ${named.hook.name}` }
        : {
            agrees: false,
            message: `predicted a rejection at ${predictedFailure.hook.name} (${predictedFailure.message}); the apiserver said: ${verdict.message}`,
          },
    );
    return out;
  }
  const d = denierOf(verdict.message);
  const denier = d.webhook ?? (d.policy !== undefined ? `${d.policy} ← ${d.binding}` : undefined);
  if (denier === undefined) {
    out.push({
      agrees: true,
      message:
        verdict.outcome === "error"
          ? "the apiserver refused the request for a reason outside admission matching (see its message)"
          : "denied; the message names no hook",
    });
    return out;
  }
  const called = dry.calls.some((c) =>
    d.webhook !== undefined
      ? c.stage.endsWith("webhook") && c.hook.name === d.webhook
      : c.stage.endsWith("policy") &&
        c.hook.configuration === d.policy &&
        c.hook.name === d.binding,
  );
  // An error that names a hook (a webhook that could not be called, timed out or answered
  // wrongly) is that hook's: the prediction must call it, as for a denial.
  const what = verdict.outcome === "error" ? `failed at ${denier}` : `denied by ${denier}`;
  out.push(
    called
      ? {
          agrees: true,
          message: `${what}, which the prediction calls (a hook's answer cannot be predicted)`,
        }
      : { agrees: false, message: `${what}, which the prediction does not call` },
  );
  return out;
}

/** How a dry run treats each called webhook, by its sideEffects. */
export interface DryRunHook {
  key: string;
  name: string;
  configuration: string;
  sideEffects: string;
  effect: "called" | "refuses";
}

/** The called webhooks whose sideEffects change what a dry run does. */
export function dryRunHooks(report: PredictReport, compiled: CompiledSnapshot): DryRunHook[] {
  const byKey = new Map([...compiled.mutating, ...compiled.validating].map((h) => [h.key, h]));
  const out: DryRunHook[] = [];
  const seen = new Set<string>();
  for (const c of report.calls) {
    const h = byKey.get(c.key);
    if (!h || seen.has(c.key)) continue;
    seen.add(c.key);
    const se = h.sideEffects ?? "(unset)";
    out.push({
      key: c.key,
      name: c.hook.name,
      configuration: c.hook.configuration,
      sideEffects: se,
      effect: se === "None" || se === "NoneOnDryRun" ? "called" : "refuses",
    });
  }
  return out;
}

/**
 * The mutating webhooks the apiserver's audit event says it called (its
 * `mutation.webhook.admission.k8s.io/round_R_index_I` annotations), against the prediction:
 * round 0 in the predicted order, round 1 among the predicted possible reinvocations. Validating
 * calls are not annotated (only failed-open ones), so they cannot be checked this way.
 */
export function compareAudited(dry: PredictReport, decisions: DecisionRecord[]): Comparison[] {
  const actual = auditedMutatingCalls(decisions);
  const round = (r: number) => actual.filter((o) => o.round === r).map((o) => o.hook);
  const predicted = (r: number) =>
    dry.calls
      .filter((c) => c.stage === "mutating-webhook" && c.round === r)
      .map((c) => c.hook.name);
  const out: Comparison[] = [];
  const a0 = round(0);
  const p0 = predicted(0);
  out.push(
    a0.join("\n") === p0.join("\n")
      ? { agrees: true, message: `mutating webhooks called in the predicted order (${a0.length})` }
      : {
          agrees: false,
          message: `mutating webhooks called: ${a0.join(", ") || "none"}; predicted: ${p0.join(", ") || "none"}`,
        },
  );
  const a1 = round(1);
  const p1 = new Set(predicted(1));
  const unexpected = a1.filter((n) => !p1.has(n));
  if (a1.length > 0 || p1.size > 0)
    out.push(
      unexpected.length === 0
        ? {
            agrees: true,
            message: `reinvocation round: ${a1.length ? a1.join(", ") : "none"} called, of ${p1.size} possible`,
          }
        : {
            agrees: false,
            message: `reinvoked without being predicted as possible: ${unexpected.join(", ")}`,
          },
    );
  return out;
}

/**
 * The mutating webhook calls of one request's audit event, in the order the apiserver made them
 * (round, then index). Prefers the ResponseComplete stage when several stages were stored.
 */
export function auditedMutatingCalls(decisions: DecisionRecord[]): DecisionRecord[] {
  const stage = decisions.some((d) => d.stage === "ResponseComplete")
    ? "ResponseComplete"
    : decisions[0]?.stage;
  return decisions
    .filter((d) => d.stage === stage && d.kind === "mutating-webhook" && d.round !== undefined)
    .sort((a, b) => (a.round ?? 0) - (b.round ?? 0) || (a.index ?? 0) - (b.index ?? 0));
}
