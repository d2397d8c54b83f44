import { clearSessionCookieHeader, sessionCookieHeader } from "@/lib/auth/session-cookie";
import { sessionRoute, signInRoute, signOutRoute, type SessionInfo } from "@/lib/api/session";
import { readJson } from "@/server/http/body";
import { handle, respond } from "@/server/http/respond";
import { impersonationMode } from "@/server/auth/session-client";
import { authorizeSession, signInWithToken, signOut } from "@/server/auth/sign-in";

export const dynamic = "force-dynamic";

function via(): SessionInfo["via"] {
  return impersonationMode() ? "impersonation" : "token";
}

/** Shared mode: signs in with a bearer token; the session cookie is HttpOnly, the token stays here. */
export async function POST(request: Request): Promise<Response> {
  return handle(async () => {
    const { token } = signInRoute.input.parse(await readJson(request));
    const { cookie, user } = await signInWithToken(token, request);
    return respond(
      signInRoute,
      { username: user.username, groups: user.groups, via: via(), signedInWith: "token" },
      { headers: { "set-cookie": sessionCookieHeader(cookie) } },
    );
  });
}

/** Who this session acts as. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const { session } = await authorizeSession(request);
    return respond(sessionRoute, {
      username: session.username,
      groups: session.groups,
      via: via(),
      signedInWith: session.method,
      expires: session.expires,
    });
  });
}

/** Signs out: the session is deleted on the server and the cookie cleared. */
export async function DELETE(request: Request): Promise<Response> {
  return handle(async () => {
    const { id } = await authorizeSession(request);
    await signOut(id);
    return respond(
      signOutRoute,
      { signedOut: true },
      { headers: { "set-cookie": clearSessionCookieHeader() } },
    );
  });
}
