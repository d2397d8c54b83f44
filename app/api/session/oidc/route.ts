import { oidcFlowCookieHeader } from "@/lib/auth/session-cookie";
import { startOidcRoute } from "@/lib/api/session";
import { startOidcSignIn } from "@/server/auth/oidc";
import { handle, respond } from "@/server/http/respond";

export const dynamic = "force-dynamic";

/**
 * Shared mode: starts an OIDC sign-in. The state, nonce and PKCE verifier go into a sealed,
 * HttpOnly flow cookie; the page sends the browser to the issuer's authorization URL.
 */
export async function POST(): Promise<Response> {
  return handle(async () => {
    const { authorizationUrl, flow } = await startOidcSignIn();
    return respond(
      startOidcRoute,
      { authorizationUrl },
      { headers: { "set-cookie": oidcFlowCookieHeader(flow) } },
    );
  });
}
