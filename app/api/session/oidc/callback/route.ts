import { clearOidcFlowCookieHeader, sessionCookieHeader } from "@/lib/auth/session-cookie";
import { oidcCallbackRoute } from "@/lib/api/session";
import { completeOidcSignIn } from "@/server/auth/oidc";
import { impersonationMode } from "@/server/auth/session-client";
import { readJson } from "@/server/http/body";
import { handle, respond } from "@/server/http/respond";

export const dynamic = "force-dynamic";

/**
 * Shared mode: completes an OIDC sign-in with what the issuer's redirect carried (the
 * /sign-in/oidc page posts it, so the session cookie can stay SameSite=Strict). The flow cookie
 * is cleared whatever the outcome: it is good for one try.
 */
export async function POST(request: Request): Promise<Response> {
  const res = await handle(async () => {
    const cb = oidcCallbackRoute.input.parse(await readJson(request));
    const { cookie, user, expires } = await completeOidcSignIn(cb, request);
    return respond(
      oidcCallbackRoute,
      {
        username: user.username,
        groups: user.groups,
        via: impersonationMode() ? "impersonation" : "token",
        signedInWith: "oidc",
        expires,
      },
      { headers: { "set-cookie": sessionCookieHeader(cookie, expires - Date.now()) } },
    );
  });
  res.headers.append("set-cookie", clearOidcFlowCookieHeader());
  return res;
}
