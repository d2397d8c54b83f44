import { z } from "zod";
import { handle, json, errorResponse } from "@/server/http/respond";
import { readJson } from "@/server/http/body";
import { listContexts } from "@/server/kube/config";
import { startingContext } from "@/server/kube/identity";
import { contextCookieHeader } from "@/lib/http/cookies";

export const dynamic = "force-dynamic";

/** The kubeconfig's contexts and the one a new tab starts in. Acts as no context. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () =>
    json({ start: startingContext(request.headers), contexts: listContexts() }),
  );
}

const body = z.object({ context: z.string().min(1).max(253) });

/**
 * Remembers where new tabs start (a cookie; the kubeconfig is not changed). Open tabs keep the
 * context they name on each request.
 */
export async function POST(request: Request): Promise<Response> {
  return handle(async () => {
    const { context } = body.parse(await readJson(request));
    if (!listContexts().some((c) => c.name === context)) {
      return errorResponse({
        status: 404,
        reason: "NotFound",
        message: `no context "${context}" in the kubeconfig`,
        cluster: "",
      });
    }
    const secure =
      new URL(request.url).protocol === "https:" ||
      request.headers.get("x-forwarded-proto") === "https";
    return json(
      { start: context },
      { headers: { "set-cookie": contextCookieHeader(context, secure) } },
    );
  });
}
