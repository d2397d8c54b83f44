import "server-only";
import { ZodError } from "zod";
import { KubeApiError } from "@/lib/k8s/errors";
import type { KubeApiErrorBody } from "@/lib/k8s/errors";
import { dashboardError, type AnyRoute, type ErrorOf, type ResponseOf } from "@/lib/api/contract";
import { RequestBodyError } from "./body";

/** JSON response with no caching: everything the API returns is live cluster state. */
function json(body: unknown, init: ResponseInit = {}): Response {
  return Response.json(body, {
    ...init,
    headers: { "cache-control": "no-store", ...(init.headers ?? {}) },
  });
}

/**
 * The route's answer, of the shape its contract (lib/api) names: the browser reads it through
 * the same contract, so a body of another shape does not compile.
 */
export function respond<C extends AnyRoute>(
  _route: C,
  body: ResponseOf<C>,
  init: ResponseInit = {},
): Response {
  return json(body, init);
}

/** A KubeApiError-shaped error response (status outside 400–599: 502). */
export function errorResponse(body: KubeApiErrorBody, init: ResponseInit = {}): Response {
  const status = body.status >= 400 && body.status <= 599 ? body.status : 502;
  return json(body, { status, ...init });
}

/**
 * An error the route answers itself, of the shape its contract names; it names no cluster
 * (lib/api/contract.ts dashboardError fills that in). `init.status` overrides the body's.
 */
export function fail<C extends AnyRoute>(
  _route: C,
  body: Omit<ErrorOf<C>, "cluster">,
  init: ResponseInit = {},
): Response {
  return errorResponse(dashboardError(body as Omit<KubeApiErrorBody, "cluster">), init);
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
      return errorResponse(
        dashboardError({ status: e.status, reason: e.reason, message: e.message }),
      );
    }
    if (e instanceof ZodError) {
      return errorResponse(
        dashboardError({
          status: 400,
          reason: "BadRequest",
          message: e.issues.map((i) => `${i.path.join(".") || "(input)"}: ${i.message}`).join("; "),
        }),
      );
    }
    return errorResponse(
      dashboardError({
        status: 500,
        reason: "InternalError",
        message: e instanceof Error ? e.message : String(e),
      }),
    );
  }
}
