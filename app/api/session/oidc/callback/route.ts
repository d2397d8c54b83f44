import { z } from "zod";
import { clearOidcFlowCookieHeader, sessionCookieHeader } from "@/lib/auth/session-cookie";
import type { SessionInfo } from "@/lib/queries/session";
import { completeOidcSignIn } from "@/server/auth/oidc";
import { impersonationMode } from "@/server/auth/session-client";
import { readJson } from "@/server/http/body";
import { handle, json } from "@/server/http/respond";

export const dynamic = "force-dynamic";

const body = z
  .object({
    state: z.string().min(1).max(512),
    code: z.string().min(1).max(4096).optional(),
    error: z.string().max(512).optional(),
    errorDescription: z.string().max(2048).optional(),
  })
  .strict();

/**
 * Shared mode: completes an OIDC sign-in with what the issuer's redirect carried (the
 * /sign-in/oidc page posts it, so the session cookie can stay SameSite=Strict). The flow cookie
 * is cleared whatever the outcome: it is good for one try.
 */
export async function POST(request: Request): Promise<Response> {
  const res = await handle(async () => {
    const cb = body.parse(await readJson(request));
    const { cookie, user, expires } = await completeOidcSignIn(cb, request);
    const info: SessionInfo = {
      username: user.username,
      groups: user.groups,
      via: impersonationMode() ? "impersonation" : "token",
      signedInWith: "oidc",
      expires,
    };
    return json(info, {
      headers: { "set-cookie": sessionCookieHeader(cookie, expires - Date.now()) },
    });
  });
  res.headers.append("set-cookie", clearOidcFlowCookieHeader());
  return res;
}
