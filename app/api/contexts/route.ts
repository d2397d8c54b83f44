import { listContextsRoute, rememberContextRoute } from "@/lib/api/contexts";
import { fail, handle, respond } from "@/server/http/respond";
import { readJson } from "@/server/http/body";
import { listContexts } from "@/server/kube/config";
import { startingContext } from "@/server/kube/identity";
import { contextCookieHeader } from "@/lib/http/cookies";

export const dynamic = "force-dynamic";

/** The kubeconfig's contexts and the one a new tab starts in. Acts as no context. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () =>
    respond(listContextsRoute, {
      start: startingContext(request.headers),
      contexts: listContexts(),
    }),
  );
}

/**
 * Remembers where new tabs start (a cookie; the kubeconfig is not changed). Open tabs keep the
 * context they name on each request.
 */
export async function POST(request: Request): Promise<Response> {
  return handle(async () => {
    const { context } = rememberContextRoute.input.parse(await readJson(request));
    if (!listContexts().some((c) => c.name === context)) {
      return fail(rememberContextRoute, {
        status: 404,
        reason: "NotFound",
        message: `no context "${context}" in the kubeconfig`,
      });
    }
    const secure =
      new URL(request.url).protocol === "https:" ||
      request.headers.get("x-forwarded-proto") === "https";
    return respond(
      rememberContextRoute,
      { start: context },
      { headers: { "set-cookie": contextCookieHeader(context, secure) } },
    );
  });
}
