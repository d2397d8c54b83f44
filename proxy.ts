import { NextResponse, type NextRequest } from "next/server";
import { isCrossSiteWrite } from "@/lib/http/cross-site";

/**
 * Refuses writes to the dashboard API that a browser sends on behalf of another site. The audit
 * sink is exempt: the apiserver posts to it with its own bearer token.
 */
export function proxy(request: NextRequest): NextResponse | undefined {
  if (request.nextUrl.pathname === "/api/audit") return undefined;
  const crossSite = isCrossSiteWrite({
    method: request.method,
    url: request.url,
    origin: request.headers.get("origin"),
    secFetchSite: request.headers.get("sec-fetch-site"),
    host: request.headers.get("host"),
  });
  if (!crossSite) return undefined;
  return NextResponse.json(
    {
      status: 403,
      reason: "CrossSiteRequest",
      message: "the dashboard refuses writes sent from another site",
      cluster: "",
    },
    { status: 403 },
  );
}

export const config = { matcher: "/api/:path*" };
