/**
 * The browser's one fetch helper for the dashboard API: every request names the context this
 * tab shows (the server refuses requests that do not), and any non-2xx answer throws ApiError.
 */
import { isKubeApiErrorBody, KubeApiError, type KubeApiErrorBody } from "@/lib/k8s/errors";
import { CONTEXT_HEADER, CONTEXT_PARAM } from "@/lib/http/context";
import { SESSION_REQUIRED } from "@/lib/auth/session-cookie";

/**
 * The kubeconfig context this tab acts as. A browser tab is one JavaScript realm, so module
 * state is tab state: two tabs never share it (the cookie only picks where a new tab starts).
 * Set by the TabContextProvider before any query of the new context runs.
 */
let tabContext: string | undefined;

export function setTabContext(context: string | undefined): void {
  tabContext = context;
}

export function getTabContext(): string | undefined {
  return tabContext;
}

/** The header naming this tab's context, for requests not sent through apiFetch. */
export function contextHeaders(): Record<string, string> {
  return tabContext ? { [CONTEXT_HEADER]: tabContext } : {};
}

/** `url` with this tab's context as a query parameter: for EventSource, which sends no headers. */
export function withContext(url: string, context: string | undefined = tabContext): string {
  if (!context) return url;
  const sep = url.includes("?") ? "&" : "?";
  return `${url}${sep}${CONTEXT_PARAM}=${encodeURIComponent(context)}`;
}

/** A KubeApiError as it reached the browser through the dashboard API. */
export class ApiError extends KubeApiError {
  constructor(body: KubeApiErrorBody) {
    super(body);
    this.name = "ApiError";
  }
}

/** Fetches JSON from the dashboard API. */
export async function apiFetch<T>(url: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      ...init,
      headers: {
        Accept: "application/json",
        ...contextHeaders(),
        ...(init?.headers ?? {}),
      },
    });
  } catch (e) {
    throw new ApiError({
      status: 0,
      reason: "DashboardUnreachable",
      message: `the dashboard server did not answer: ${e instanceof Error ? e.message : String(e)}`,
      cluster: "",
    });
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    if (
      res.status === 401 &&
      isKubeApiErrorBody(body) &&
      body.reason === SESSION_REQUIRED &&
      typeof window !== "undefined" &&
      window.location.pathname !== "/sign-in" &&
      // The OIDC callback page shows its own error: leaving it would hide why sign-in failed.
      !window.location.pathname.startsWith("/sign-in/")
    ) {
      // Shared mode, and the session has ended (signed out elsewhere, expired, idle).
      window.location.assign("/sign-in");
    }
    throw new ApiError(
      isKubeApiErrorBody(body)
        ? body
        : {
            status: res.status,
            reason: res.statusText || "Error",
            message: text.slice(0, 300) || `HTTP ${res.status}`,
            cluster: "",
          },
    );
  }
  return body as T;
}
