/** /api/admission-health: the health report of every admission hook, one contract for the route and the Health page. */
import { z } from "zod";
import type {
  HealthReason,
  LatencySummary,
  ProbeResult,
  Severity,
} from "@/lib/admission/health/health";
import type { PolicyKind, QuantileBucket } from "@/lib/admission/health/metrics";
import type { ManifestOrigin } from "@/lib/admission/model/manifests";
import type { ReceiverStatus, TraceSummary } from "@/lib/traces/summary";
import { apiUrl, route } from "./contract";

export interface HealthRow {
  /** "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration" or "CustomResourceDefinition". */
  source: string;
  configuration: string;
  /** The hook's name; for a conversion webhook, the CRD's name. */
  hook: string;
  /** Position of the hook in its configuration (for links). */
  index: number;
  failurePolicy: "Fail" | "Ignore";
  timeoutSeconds: number;
  severity: Severity;
  reasons: HealthReason[];
  latency: LatencySummary;
  /** Over the window: calls, rejections by error type, fail-opens; undefined before a window exists. */
  window?: { calls: number; rejected: number; failOpen: number; errors: number };
  total?: {
    calls: number;
    rejected: number;
    failOpen: number;
    errors: number;
    byCode: Record<string, number>;
  };
  errorRate?: number;
  /** p99 seconds per scrape interval, oldest first. */
  spark: Array<number | null>;
  /** When the first and last scrape of the spark were read (ms): where a change's marker falls. */
  sparkSpan?: { from: number; to: number };
  backend: string;
  probe: ProbeResult;
  caDaysLeft?: number;
  /** Latency of each call from the apiserver's own spans (this configuration's hook only). */
  traces?: TraceSummary;
  /** Set for a static hook (loaded by the apiserver from a manifest file): its file. */
  origin?: ManifestOrigin;
}

export interface PolicyHealthRow {
  kind: PolicyKind;
  policy: string;
  binding: string;
  /** The policy's failurePolicy; undefined when it cannot be read (deleted, not listable). */
  failurePolicy?: "Fail" | "Ignore";
  severity: Severity;
  reasons: HealthReason[];
  /** Since the apiserver started (see PolicyMetrics for what each kind counts). */
  checks: number;
  byAction: Record<string, number>;
  errors: Record<string, number>;
  /** Failed evaluations since the apiserver started. */
  evaluationErrors: number;
  /** Over the window, once there is one. */
  window?: { checks: number; evaluationErrors: number };
  /** Per-expression evaluation time, over the window when it saw any, else since start. */
  latency: LatencySummary;
  /** The histogram buckets p50, p90 and p99 fall in (a decade wide: the honest answer). */
  latencyBuckets: { p50?: QuantileBucket; p90?: QuantileBucket; p99?: QuantileBucket };
  /** Whether the policy still exists (its metrics outlive it); undefined when unknown. */
  exists?: boolean;
  /** Set for a static policy (loaded by the apiserver from a manifest file): its file. */
  origin?: ManifestOrigin;
}

export interface HealthReport {
  scrapedAt: number;
  windowSeconds: number;
  /** Why the apiserver's metrics could not be read (e.g. RBAC on /metrics), if so. */
  metricsError?: string;
  /** Why conversion webhooks could not be listed, if so. */
  conversionError?: string;
  labelNames: Record<string, string[]>;
  rows: HealthRow[];
  policies: PolicyHealthRow[];
  /** The trace receiver's state: where it listens, how much it received. */
  traces: ReceiverStatus;
}

export const HEALTH_FILTER_FIELDS = [
  "source",
  "configuration",
  "kind",
  "policy",
  "binding",
] as const;

/** Object names are at most 253 characters; anything longer matches nothing and is refused. */
const name = z.string().min(1).max(253).optional();

/**
 * Narrows the report: one webhook configuration's hooks (`source` + `configuration`; a CRD's
 * conversion webhook with source "CustomResourceDefinition"), or one policy's bindings (`policy`,
 * optionally `kind` and one `binding`: a validating and a mutating policy may share a name).
 * Empty: everything. (The route's query.)
 */
const healthFilter = z
  .object({
    source: z
      .string()
      .pipe(
        z.enum([
          "MutatingWebhookConfiguration",
          "ValidatingWebhookConfiguration",
          "CustomResourceDefinition",
        ]),
      )
      .optional(),
    configuration: name,
    kind: z.enum(["ValidatingAdmissionPolicy", "MutatingAdmissionPolicy"]).optional(),
    policy: name,
    binding: name,
  })
  .strict();

/**
 * Health of every admission hook as the request's identity sees it; the query narrows it (see
 * HealthFilter).
 */
export const admissionHealthRoute = route<HealthReport>()({
  method: "GET",
  path: "/api/admission-health",
  input: healthFilter,
});

export type HealthFilter = z.input<typeof healthFilter>;

/** The filter as sent: its fields in a stable order, empty ones left out. */
export function healthQueryInput(filter: HealthFilter = {}): HealthFilter {
  const q: HealthFilter = {};
  for (const f of HEALTH_FILTER_FIELDS) {
    const v = filter[f];
    if (v !== undefined && v !== "") Object.assign(q, { [f]: v });
  }
  return q;
}

/** The report's URL for a filter (fields in a stable order, empty ones left out). */
export function healthUrl(filter: HealthFilter = {}): string {
  return apiUrl(admissionHealthRoute, { input: healthQueryInput(filter) });
}
