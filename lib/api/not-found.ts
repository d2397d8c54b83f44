/**
 * app/api/[...path]: any /api path no route serves answers the API's own error shape (JSON, 404),
 * not the pages' HTML "not found", so a script or a page's fetch reads why.
 */
import { route } from "./contract";

const path = "/api/[...path]";

export const notFoundRoutes = {
  GET: route<never>()({ method: "GET", path }),
  HEAD: route<never>()({ method: "HEAD", path }),
  POST: route<never>()({ method: "POST", path }),
  PUT: route<never>()({ method: "PUT", path }),
  PATCH: route<never>()({ method: "PATCH", path }),
  DELETE: route<never>()({ method: "DELETE", path }),
};
