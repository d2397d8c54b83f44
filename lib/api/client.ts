/**
 * The browser's one way to call the dashboard API: `callApi(contract, …)` (lib/api/contract.ts)
 * builds the URL and the JSON body from the route's contract and answers its response type. Every
 * request names the context this tab shows (the server refuses requests that do not), and any
 * non-2xx answer throws ApiError.
 */
import { isKubeApiErrorBody, KubeApiError, type KubeApiErrorBody } from "@/lib/k8s/errors";
import {
  apiUrl,
  dashboardError,
  type AnyRoute,
  type ErrorOf,
  type ResponseOf,
  type UrlOptions,
} from "./contract";
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

/** The header naming this tab's context. */
function contextHeaders(): Record<string, string> {
  return tabContext ? { [CONTEXT_HEADER]: tabContext } : {};
}

/** `url` with this tab's context as a query parameter: for EventSource, which sends no headers. */
function withContext(url: string, context: string | undefined = tabContext): string {
  if (!context) return url;
  const sep = url.includes("?") ? "&" : "?";
  return `${url}${sep}${CONTEXT_PARAM}=${encodeURIComponent(context)}`;
}

/**
 * A KubeApiError as it reached the browser through the dashboard API; `body` is the error as
 * answered, with what a route's error type adds (a rename's steps).
 */
export class ApiError<E extends KubeApiErrorBody = KubeApiErrorBody> extends KubeApiError {
  constructor(readonly body: E) {
    super(body);
    this.name = "ApiError";
  }
}

/** The error of a call to `route`, as its contract types it; undefined for anything else. */
export function routeError<C extends AnyRoute>(_route: C, e: unknown): ErrorOf<C> | undefined {
  return e instanceof ApiError ? (e.body as ErrorOf<C>) : undefined;
}

/** A call's options: the route's path segments and input (see UrlOptions), and its signal. */
export type CallOptions<C extends AnyRoute> = UrlOptions<C> & { signal?: AbortSignal };

/**
 * Calls the route its contract describes: its input as the query of a GET, as the JSON body of
 * anything else. Answers the response the contract names (as the route's handler sent it).
 */
export function callApi<C extends AnyRoute>(
  route: C,
  ...[opts]: object extends CallOptions<C> ? [CallOptions<C>?] : [CallOptions<C>]
): Promise<ResponseOf<C>> {
  const o = (opts ?? {}) as CallOptions<C>;
  const url = apiUrl(route, o);
  const { input, signal } = o as { input?: unknown; signal?: AbortSignal };
  const hasBody = route.method !== "GET" && route.method !== "HEAD" && input !== undefined;
  return send<ResponseOf<C>>(url, {
    ...(route.method === "GET" ? {} : { method: route.method }),
    ...(hasBody
      ? { headers: { "Content-Type": "application/json" }, body: JSON.stringify(input) }
      : {}),
    ...(signal ? { signal } : {}),
  });
}

/** Fetches JSON from the dashboard API. */
async function send<T>(url: string, init: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, {
      ...init,
      headers: {
        Accept: "application/json",
        ...contextHeaders(),
        ...(init.headers ?? {}),
      },
    });
  } catch (e) {
    throw new ApiError(
      dashboardError({
        status: 0,
        reason: "DashboardUnreachable",
        message: `the dashboard server did not answer: ${e instanceof Error ? e.message : String(e)}`,
      }),
    );
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
        : dashboardError({
            status: res.status,
            reason: res.statusText || "Error",
            message: text.slice(0, 300) || `HTTP ${res.status}`,
          }),
    );
  }
  return body as T;
}

/**
 * The URL of an event stream route, for EventSource (which sends no headers: the tab's context
 * goes in the query).
 */
export function streamUrl<C extends AnyRoute>(
  route: C,
  opts: UrlOptions<C>,
  context: string | undefined = tabContext,
): string {
  return withContext(apiUrl(route, opts), context);
}
