import { notFoundRoutes } from "@/lib/api/not-found";
import { fail } from "@/server/http/respond";

export const dynamic = "force-dynamic";

/**
 * Any /api path no route serves: the API's own error shape (JSON), not the pages' HTML
 * "not found", so a script or a page's fetch reads why.
 */
function notFound(request: Request): Response {
  const path = new URL(request.url).pathname;
  // Every method answers the same.
  return fail(notFoundRoutes.GET, {
    status: 404,
    reason: "NotFound",
    message: `the dashboard's API has no route at ${path.slice(0, 200)}`,
  });
}

export const GET = notFound;
export const HEAD = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
