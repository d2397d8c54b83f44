/** The health report: one contract for /api/admission-health and the Health page. */
import { queryOptions } from "@tanstack/react-query";
import type { HealthReason, LatencySummary, ProbeResult, Severity } from "@/lib/admission/health";
import { apiFetch } from "./fetch";
import { queryKeys } from "./keys";

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
  backend: string;
  probe: ProbeResult;
  caDaysLeft?: number;
}

export interface PolicyHealthRow {
  policy: string;
  binding: string;
  checks: number;
  byAction: Record<string, number>;
  errors: Record<string, number>;
  p99?: number;
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
}

export const healthQuery = (context: string) =>
  queryOptions({
    queryKey: queryKeys.health(context),
    queryFn: ({ signal }) => apiFetch<HealthReport>("/api/admission-health", { signal }),
    refetchInterval: 15_000,
  });
