/**
 * How healthy one admission hook is, judged from what the apiserver's metrics, a probe of its
 * backend and its CA bundle say, with the reasons an admin acts on. Pure: the server gathers the
 * facts, this decides, and the page sorts rows worst first by the result.
 */
import {
  histogramQuantile,
  quantileBucket,
  type PolicyKind,
  type QuantileBucket,
  type PolicyMetrics,
  type WebhookMetrics,
} from "./metrics";
import { judgeServiceBackend, type ServiceBackendFacts } from "./backend-judgement";
import { judgeCaBundle, type CaFacts } from "./ca-judgement";

export { caFactsOf, type CaFacts } from "./ca-judgement";

export type Severity = "critical" | "high" | "medium" | "info" | "ok";

export const SEVERITY_RANK: Record<Severity, number> = {
  critical: 4,
  high: 3,
  medium: 2,
  info: 1,
  ok: 0,
};

/** The most severe of the reasons; "ok" when there are none. */
function worstOf(reasons: readonly HealthReason[]): Severity {
  return reasons.reduce<Severity>(
    (worst, r) => (SEVERITY_RANK[r.severity] > SEVERITY_RANK[worst] ? r.severity : worst),
    "ok",
  );
}

export interface HealthReason {
  severity: Exclude<Severity, "ok">;
  code: string;
  message: string;
}

/** What a probe of the hook's backend found, from where the dashboard runs. */
export type ProbeResult =
  | { status: "ok"; latencyMs: number; served: ServedCertificate }
  /** The backend answered, but TLS did not verify with the hook's own caBundle and server name. */
  | {
      status: "tls-failed";
      latencyMs: number;
      error: string;
      code?: string;
      served?: ServedCertificate;
    }
  /** Dialled, and refused or timed out. */
  | { status: "down"; error: string }
  /** The name does not resolve here (e.g. `<svc>.<ns>.svc` outside the cluster): not "down". */
  | { status: "unreachable-from-here"; error: string }
  | { status: "not-probed"; reason: string };

export interface ServedCertificate {
  subject: string;
  subjectAltName?: string;
  notAfter: string;
  /** The leaf's signature algorithm, e.g. sha256WithRSAEncryption, ecdsa-with-SHA1. */
  signatureAlgorithm?: string;
}

export interface BackendFacts extends ServiceBackendFacts {
  kind: "service" | "url" | "none";
  /** The name the apiserver verifies the serving certificate against. */
  serverName?: string;
}

export interface HookHealthInput {
  failurePolicy: "Fail" | "Ignore";
  timeoutSeconds: number;
  /** Cumulative since the apiserver started. */
  total?: WebhookMetrics;
  /** The recent window (latest scrape minus one a few minutes older), when there is one. */
  window?: WebhookMetrics;
  /** The window before it, to see an error rate jump. */
  previousWindow?: WebhookMetrics;
  /** How many hooks of the same type share this name (metrics cannot tell them apart). */
  sameName: number;
  backend: BackendFacts;
  probe: ProbeResult;
  ca: CaFacts;
}

export interface LatencySummary {
  p50?: number;
  p90?: number;
  p99?: number;
  /** What the quantiles were computed over. */
  over: "window" | "since-start" | "none";
  calls: number;
}

export interface HookHealth {
  severity: Severity;
  reasons: HealthReason[];
  latency: LatencySummary;
  /** Calls that failed to reach or be answered by the hook (calling_webhook_error) over the window. */
  errorRate?: number;
}

function errors(m: WebhookMetrics | undefined): number {
  if (!m) return 0;
  return (m.rejections.calling_webhook_error ?? 0) + (m.rejections.apiserver_internal_error ?? 0);
}

function rate(m: WebhookMetrics | undefined): number | undefined {
  if (!m || m.calls <= 0) return undefined;
  return errors(m) / m.calls;
}

/** What latency is computed from: a cumulative histogram and its count. */
type Histogram = Pick<WebhookMetrics, "buckets" | "durationCount">;

/** Quantiles over the window when it saw calls, else since the apiserver started. */
function latencyOf(window: Histogram | undefined, total: Histogram | undefined): LatencySummary {
  const src = window && window.durationCount > 0 ? window : total;
  if (!src || src.durationCount <= 0) return { over: "none", calls: 0 };
  return {
    p50: histogramQuantile(0.5, src.buckets),
    p90: histogramQuantile(0.9, src.buckets),
    p99: histogramQuantile(0.99, src.buckets),
    over: src === window ? "window" : "since-start",
    calls: src.durationCount,
  };
}

const ms = (s: number) => `${Math.round(s * 1000)} ms`;

/** Judges one hook. */
export function assessHook(input: HookHealthInput): HookHealth {
  const reasons: HealthReason[] = [];
  const failClosed = input.failurePolicy === "Fail";
  const backendSeverity = failClosed ? "critical" : "high";
  const add = (severity: HealthReason["severity"], code: string, message: string) =>
    reasons.push({ severity, code, message });

  // Backend present and ready, as the apiserver's service resolver judges it.
  const b = input.backend;
  if (b.kind === "service") {
    for (const j of judgeServiceBackend(b, failClosed)) add(j.severity, j.code, j.message);
  }

  // What a probe from here saw.
  const p = input.probe;
  if (p.status === "down")
    add(backendSeverity, "probe-down", `the backend did not answer a TLS handshake: ${p.error}`);
  if (p.status === "tls-failed") {
    const san = p.code === "ERR_TLS_CERT_ALTNAME_INVALID";
    add(
      backendSeverity,
      san ? "san-mismatch" : "tls-failed",
      san
        ? `the serving certificate does not name ${b.serverName ?? "the host the apiserver calls"}: ${p.error}`
        : `TLS does not verify with the hook's caBundle: ${p.error}`,
    );
  }
  if (p.status === "unreachable-from-here") {
    add(
      "info",
      "not-reachable-from-dashboard",
      `not reachable from where the dashboard runs (${p.error}); this says nothing about the apiserver's view`,
    );
  }
  const served = p.status === "ok" || p.status === "tls-failed" ? p.served : undefined;
  if (served?.signatureAlgorithm && /sha1/i.test(served.signatureAlgorithm)) {
    add(
      "high",
      "insecure-sha1",
      `the serving certificate is signed with ${served.signatureAlgorithm}; the apiserver flags SHA-1 as insecure`,
    );
  }
  if (p.status === "ok" && p.latencyMs > input.timeoutSeconds * 1000 * 0.5) {
    add(
      "medium",
      "slow-handshake",
      `the TLS handshake alone took ${Math.round(p.latencyMs)} ms of a ${input.timeoutSeconds} s timeout`,
    );
  }

  // CA bundle.
  for (const j of judgeCaBundle(input.ca, failClosed)) add(j.severity, j.code, j.message);

  // The apiserver's own view.
  const latency = latencyOf(input.window, input.total);
  const timeout = input.timeoutSeconds;
  if (latency.p99 !== undefined && latency.p99 > timeout * 0.5) {
    // Histogram buckets are coarse (…1, 2.5, 10 s): an estimate past the timeout means calls
    // ran into the timeout.
    add(
      latency.p99 >= timeout * 0.9 ? "critical" : "high",
      "slow",
      latency.p99 >= timeout
        ? `p99 latency reaches its ${timeout} s timeout: calls time out`
        : `p99 latency ${ms(latency.p99)} is ${Math.round((latency.p99 / timeout) * 100)} % of its ${timeout} s timeout`,
    );
  }
  const failOpen = input.window?.failOpen ?? input.total?.failOpen ?? 0;
  const failOpenTotal = input.total?.failOpen ?? 0;
  if (failOpen > 0 || failOpenTotal > 0) {
    add(
      "high",
      "fails-open",
      `failed open ${failOpen > 0 ? `${failOpen} times in the window` : `${failOpenTotal} times since the apiserver started`}: requests went through unchecked`,
    );
  }
  const errorRate = rate(input.window);
  const before = rate(input.previousWindow) ?? 0;
  if (errorRate !== undefined && errorRate > 0) {
    const jumped = errorRate >= 0.05 && errorRate >= before * 2;
    add(
      jumped ? "high" : "medium",
      jumped ? "error-rate-jump" : "errors",
      `${Math.round(errorRate * 100)} % of calls in the window failed to reach or be answered by the hook${jumped && before > 0 ? ` (was ${Math.round(before * 100)} %)` : ""}`,
    );
  } else if (errorRate === undefined && errors(input.total) > 0) {
    add(
      "info",
      "errors-since-start",
      `${errors(input.total)} calls failed since the apiserver started`,
    );
  }
  if (input.sameName > 1) {
    add(
      "info",
      "ambiguous-metrics",
      `${input.sameName} hooks share this name: the apiserver's metrics add them up (kubernetes#79832)`,
    );
  }

  const severity = worstOf(reasons);
  return { severity, reasons, latency, errorRate };
}

export interface PolicyHealthInput {
  kind: PolicyKind;
  /** The policy's failurePolicy; undefined when the policy cannot be read (deleted, forbidden). */
  failurePolicy?: "Fail" | "Ignore";
  total: PolicyMetrics;
  window?: PolicyMetrics;
}

export interface PolicyHealth {
  severity: Severity;
  reasons: HealthReason[];
  latency: LatencySummary;
  /** The buckets p50, p90 and p99 fall in (over the same span as `latency`). */
  latencyBuckets: { p50?: QuantileBucket; p90?: QuantileBucket; p99?: QuantileBucket };
}

/** A duration in seconds in the unit that suits it: µs below 1 ms, s from 1 s. */
function durationText(s: number): string {
  if (s < 0.001) return `${Math.round(s * 1e7) / 10} µs`;
  if (s < 1) return `${Math.round(s * 1000)} ms`;
  return `${s} s`;
}

/** A histogram bucket as text: "≤ 1 ms", "> 1 s". */
export function bucketText(b: QuantileBucket | undefined): string {
  if (!b) return "—";
  return b.upper === Infinity ? `> ${durationText(b.lower)}` : `≤ ${durationText(b.upper)}`;
}

/**
 * A CEL expression normally evaluates in microseconds; the apiserver's buckets stop at 1 s,
 * which its authors reserve for expressions near the cost limit. Past 100 ms at p99, an
 * expression adds visible latency to every matching write.
 */
const POLICY_SLOW_SECONDS = 0.1;

/**
 * Judges one policy binding from the apiserver's counts: evaluations that failed (and what the
 * failurePolicy made of them) and how long its expressions take.
 */
export function assessPolicy(input: PolicyHealthInput): PolicyHealth {
  const reasons: HealthReason[] = [];
  const add = (severity: HealthReason["severity"], code: string, message: string) =>
    reasons.push({ severity, code, message });
  const mutating = input.kind === "MutatingAdmissionPolicy";
  const unit = mutating ? "mutation" : "validation";

  const recent = input.window;
  const failed = recent ? recent.evaluationErrors : input.total.evaluationErrors;
  if (failed > 0) {
    const over = recent ? "in the window" : "since the apiserver started";
    const src = recent ?? input.total;
    const types = Object.entries(src.errors)
      .filter(([t, n]) => t !== "no_error" && n > 0)
      .map(([t, n]) => `${t} ${n}`)
      .join(", ");
    const outcome =
      input.failurePolicy === "Ignore"
        ? mutating
          ? ": failurePolicy Ignore let those requests through unmutated"
          : ": failurePolicy Ignore let those requests through unchecked"
        : input.failurePolicy === "Fail"
          ? ": failurePolicy Fail refused those requests"
          : "";
    const rateText =
      mutating && src.checks > 0 ? ` (${Math.round((failed / src.checks) * 100)} %)` : "";
    add(
      "high",
      "errors",
      `${failed} ${unit} expression evaluations failed ${over}${rateText}${types ? ` — ${types}` : ""}${outcome}`,
    );
  } else if (recent && input.total.evaluationErrors > 0) {
    add(
      "info",
      "errors-since-start",
      `${input.total.evaluationErrors} ${unit} expression evaluations failed since the apiserver started`,
    );
  }

  const latency = latencyOf(recent, input.total);
  const src =
    latency.over === "window" ? recent : latency.over === "since-start" ? input.total : undefined;
  const latencyBuckets = src
    ? {
        p50: quantileBucket(0.5, src.buckets),
        p90: quantileBucket(0.9, src.buckets),
        p99: quantileBucket(0.99, src.buckets),
      }
    : {};
  // The buckets are a decade wide: say which one p99 falls in rather than a value inside it.
  const p99 = latencyBuckets.p99;
  if (p99 && p99.lower >= POLICY_SLOW_SECONDS) {
    const range =
      p99.upper === Infinity
        ? `over ${durationText(p99.lower)} (past the apiserver's last bucket)`
        : `between ${durationText(p99.lower)} and ${durationText(p99.upper)}`;
    add(
      p99.lower >= 1 ? "high" : "medium",
      "slow",
      `p99 ${unit} expression time is ${range}${latency.over === "window" ? " in the window" : " since the apiserver started"}; expressions usually take well under 1 ms`,
    );
  }

  const severity = worstOf(reasons);
  return { severity, reasons, latency, latencyBuckets };
}
