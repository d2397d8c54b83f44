import { NextResponse, type NextRequest } from "next/server";
import { decide, policyConfigFromEnv, type PolicyDecision } from "@/lib/http/request-policy";
import { declaredBodyLimit } from "@/lib/http/json-limits";
import { contentSecurityPolicy, SECURITY_HEADERS } from "@/lib/http/security-headers";
import { sessionCookie } from "@/lib/auth/session-cookie";
import { verifySessionCookie } from "@/server/auth/secret";
import { dashboardError } from "@/lib/api/contract";

/** Shared mode: whether the request carries a session cookie signed with this dashboard's key. */
function signedSession(cookieHeader: string | null, shared: boolean): boolean {
  if (!shared) return false;
  const value = sessionCookie(cookieHeader);
  if (value === undefined) return false;
  try {
    return verifySessionCookie(value) !== undefined;
  } catch {
    return false; // no usable session secret: nobody is signed in
  }
}

/** A body refused for its declared size (413), before the route reads it. */
interface BodyRefusal {
  allow: false;
  status: 413;
  reason: string;
  message: string;
  redirect?: undefined;
}

/**
 * Every request the dashboard serves passes here first: the one request policy
 * (lib/http/request-policy.ts) decides, and every response gets the security headers and a
 * per-request nonce for Next's own inline scripts.
 */
export function proxy(request: NextRequest): NextResponse {
  // Read at run time, not inlined at build time: the port and allowed names are the server's.
  const config = policyConfigFromEnv({
    PORTCULLIS_ALLOWED_HOSTS: process.env["PORTCULLIS_ALLOWED_HOSTS"],
    PORTCULLIS_PORT: process.env["PORTCULLIS_PORT"],
    PORT: process.env["PORT"],
    PORTCULLIS_MODE: process.env["PORTCULLIS_MODE"],
  });
  let decision: PolicyDecision | BodyRefusal = decide(
    {
      method: request.method,
      pathname: request.nextUrl.pathname,
      host: request.headers.get("host"),
      origin: request.headers.get("origin"),
      secFetchSite: request.headers.get("sec-fetch-site"),
      hasSession: signedSession(request.headers.get("cookie"), config.mode === "shared"),
    },
    config,
  );
  // A body larger than its route takes is refused before anything reads it: a stranger's 3 MB
  // sign-in body, or any API body over 3 MiB, costs the server no more than its headers.
  const declared = Number(request.headers.get("content-length") ?? "0");
  const bodyLimit = declaredBodyLimit(request.nextUrl.pathname);
  if (decision.allow && bodyLimit !== undefined && declared > bodyLimit) {
    decision = {
      allow: false,
      status: 413,
      reason: "RequestEntityTooLarge",
      message: `request body larger than ${bodyLimit} bytes`,
    };
  }
  const nonce = btoa(crypto.randomUUID());
  const csp = contentSecurityPolicy(nonce, process.env.NODE_ENV !== "production");
  let response: NextResponse;
  if (!decision.allow) {
    const isApi = request.nextUrl.pathname.startsWith("/api/");
    response = decision.redirect
      ? NextResponse.redirect(new URL(decision.redirect, request.url), 303)
      : isApi
        ? NextResponse.json(
            dashboardError({
              status: decision.status,
              reason: decision.reason,
              message: decision.message,
            }),
            { status: decision.status },
          )
        : new NextResponse(`${decision.message}\n`, {
            status: decision.status,
            headers: { "content-type": "text/plain; charset=utf-8" },
          });
  } else {
    const headers = new Headers(request.headers);
    // Identity is the session's (or the named context's), never the client's say-so: no
    // Impersonate-* header a client sends reaches a handler (the kube client sends none of its own
    // from a request either; this keeps it so if one ever forwards headers).
    for (const name of [...headers.keys()]) {
      if (name.toLowerCase().startsWith("impersonate-")) headers.delete(name);
    }
    // Next reads the nonce from the request's CSP header and puts it on the scripts it renders.
    headers.set("content-security-policy", csp);
    response = NextResponse.next({ request: { headers } });
  }
  response.headers.set("content-security-policy", csp);
  for (const [name, value] of SECURITY_HEADERS) response.headers.set(name, value);
  return response;
}

export const config = { matcher: "/:path*" };
