import "server-only";
import { ZodError } from "zod";
import { KubeApiError } from "@/lib/k8s/errors";
import { RequestBodyError } from "./body";
import type { KubeApiErrorBody } from "@/lib/k8s/errors";

/** JSON response with no caching: everything the API returns is live cluster state. */
export function json(body: unknown, init: ResponseInit = {}): Response {
  return Response.json(body, {
    ...init,
    headers: { "cache-control": "no-store", ...(init.headers ?? {}) },
  });
}

/** A KubeApiError-shaped error response. */
export function errorResponse(body: KubeApiErrorBody): Response {
  const status = body.status >= 400 && body.status <= 599 ? body.status : 502;
  return json(body, { status });
}

/**
 * Runs a route handler body and turns every failure into the one error shape: KubeApiError as
 * is, zod input errors as 400 BadRequest, anything else as 500 with its message.
 */
export async function handle(fn: () => Promise<Response>): Promise<Response> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof KubeApiError) return errorResponse(e.toJSON());
    if (e instanceof RequestBodyError) {
      return errorResponse({ status: e.status, reason: e.reason, message: e.message, cluster: "" });
    }
    if (e instanceof ZodError) {
      return errorResponse({
        status: 400,
        reason: "BadRequest",
        message: e.issues.map((i) => `${i.path.join(".") || "(input)"}: ${i.message}`).join("; "),
        cluster: "",
      });
    }
    return errorResponse({
      status: 500,
      reason: "InternalError",
      message: e instanceof Error ? e.message : String(e),
      cluster: "",
    });
  }
}
