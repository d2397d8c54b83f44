// Plain Node (no Next, no "server-only"): shared by the dashboard server and the command line;
// eslint.config.mjs keeps it that way, and lib/ and components/ still cannot import server/.
import { isKubeStatus, KubeApiError } from "@/lib/k8s/errors";

const TRANSPORT_HINTS: Record<string, string> = {
  ECONNREFUSED:
    "nothing is listening there: is the apiserver running, and is the server URL in the kubeconfig right?",
  ENOTFOUND: "the host name does not resolve: check the server URL in the kubeconfig",
  ETIMEDOUT: "the connection timed out: check the network path to the apiserver",
  ECONNRESET: "the connection was reset by the server",
  EHOSTUNREACH: "the host is unreachable: check the network path to the apiserver",
  DEPTH_ZERO_SELF_SIGNED_CERT:
    "the server certificate is self-signed and not trusted: check certificate-authority in the kubeconfig",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    "the server certificate is not trusted: check certificate-authority in the kubeconfig",
  SELF_SIGNED_CERT_IN_CHAIN:
    "the server certificate chain is not trusted: check certificate-authority in the kubeconfig",
  ERR_TLS_CERT_ALTNAME_INVALID:
    "the server certificate does not name this host: check the server URL",
};

/** An apiserver response body (status code + text) turned into a KubeApiError. */
export function errorFromResponse(status: number, text: string, cluster: string): KubeApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (isKubeStatus(parsed)) {
    return new KubeApiError({
      status: parsed.code ?? status,
      reason: parsed.reason || defaultReason(status),
      message: parsed.message || `the apiserver answered ${status}`,
      details: parsed.details,
      cluster,
    });
  }
  const snippet = text.trim().slice(0, 300);
  return new KubeApiError({
    status,
    reason: defaultReason(status),
    message: snippet
      ? `the apiserver answered ${status}: ${snippet}`
      : `the apiserver answered ${status}`,
    cluster,
  });
}

function defaultReason(status: number): string {
  switch (status) {
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 409:
      return "Conflict";
    case 410:
      return "Expired";
    case 413:
      return "RequestEntityTooLarge";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 504:
      return "Timeout";
    default:
      return status >= 500 ? "InternalError" : "BadRequest";
  }
}

/** Any thrown value (transport error, abort, bug) turned into a KubeApiError. */
export function toKubeApiError(e: unknown, cluster: string): KubeApiError {
  if (e instanceof KubeApiError) return e;
  if (e instanceof Error && e.name === "AbortError") {
    return new KubeApiError({
      status: 499,
      reason: "Aborted",
      message: "the request was cancelled",
      cluster,
    });
  }
  const code = typeof e === "object" && e !== null ? (e as { code?: unknown }).code : undefined;
  const message = e instanceof Error ? e.message : String(e);
  if (typeof code === "string") {
    const hint = TRANSPORT_HINTS[code];
    return new KubeApiError({
      status: 503,
      reason: "Unreachable",
      message: `cannot reach the apiserver at ${cluster}: ${message}${hint ? ` — ${hint}` : ""}`,
      cluster,
    });
  }
  return new KubeApiError({ status: 500, reason: "InternalError", message, cluster });
}
