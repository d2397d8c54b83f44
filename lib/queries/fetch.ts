/** The browser's one fetch helper for the dashboard API: throws ApiError on any non-2xx answer. */
import { isKubeApiErrorBody, KubeApiError, type KubeApiErrorBody } from "@/lib/k8s/errors";

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
      headers: { Accept: "application/json", ...(init?.headers ?? {}) },
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
