/**
 * The one error shape for everything that crosses the Kubernetes API boundary. Route handlers
 * return it as JSON; the browser's fetch helper parses it back. Pure: shared by server and client.
 */
export interface KubeApiErrorBody {
  /** HTTP status from the apiserver, or 0 when it could not be reached, 503 when unreachable. */
  status: number;
  /** The apiserver's Status.reason (e.g. NotFound, Conflict, Invalid, Forbidden), or ours for transport errors. */
  reason: string;
  message: string;
  details?: KubeStatusDetails;
  /** The API server URL the request went to. */
  cluster: string;
}

interface KubeStatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface KubeStatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: KubeStatusCause[];
  retryAfterSeconds?: number;
}

/**
 * Every failure of a call to the apiserver, with the apiserver's own status, reason and
 * message. Thrown by server/kube on the server and, rebuilt from the JSON body, by the browser's
 * fetch helper.
 */
export class KubeApiError extends Error implements KubeApiErrorBody {
  readonly status: number;
  readonly reason: string;
  readonly details?: KubeStatusDetails;
  readonly cluster: string;

  constructor(body: KubeApiErrorBody) {
    super(body.message);
    this.name = "KubeApiError";
    this.status = body.status;
    this.reason = body.reason;
    this.details = body.details;
    this.cluster = body.cluster;
  }

  toJSON(): KubeApiErrorBody {
    return {
      status: this.status,
      reason: this.reason,
      message: this.message,
      details: this.details,
      cluster: this.cluster,
    };
  }
}

/** A metav1.Status body as the apiserver returns it on failure. */
export interface KubeStatus {
  kind: "Status";
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  details?: KubeStatusDetails;
  code?: number;
}

/** Type guard for a metav1.Status body. */
export function isKubeStatus(value: unknown): value is KubeStatus {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { kind?: unknown }).kind === "Status" &&
    typeof (value as { code?: unknown }).code !== "string"
  );
}

/** Type guard for a KubeApiErrorBody as route handlers send it. */
export function isKubeApiErrorBody(value: unknown): value is KubeApiErrorBody {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.status === "number" && typeof v.reason === "string" && typeof v.message === "string"
  );
}

/**
 * Reasons of failures in which no apiserver answered the request: the dashboard could not reach
 * the apiserver (or the browser the dashboard), the request was cancelled, the answer was not the
 * apiserver's, or no cluster is configured.
 */
const NOT_A_VERDICT = new Set([
  "Unreachable",
  "DashboardUnreachable",
  "Aborted",
  "BadResponse",
  "NoCluster",
]);

/** Whether an error is an apiserver's answer to the request (not a failure to get one). */
export function isApiserverVerdict(err: KubeApiErrorBody): boolean {
  return !NOT_A_VERDICT.has(err.reason);
}

/** Whether an error says the cluster (or the dashboard) did not answer at all. */
export function isNoAnswer(err: { reason?: string }): boolean {
  return err.reason === "Unreachable" || err.reason === "DashboardUnreachable";
}
