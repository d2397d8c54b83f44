import { z } from "zod";
import { handle, json, errorResponse } from "@/server/http/respond";
import { readJson } from "@/server/http/body";
import { listContexts } from "@/server/kube/config";
import { CONTEXT_COOKIE, contextOf } from "@/server/kube/identity";

export const dynamic = "force-dynamic";

/** The kubeconfig's contexts and the one this browser acts as. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => json({ current: contextOf(request), contexts: listContexts() }));
}

const body = z.object({ context: z.string().min(1).max(253) });

/** Switches the context this browser acts as (a cookie; the kubeconfig is not changed). */
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
    return json(
      { current: context },
      {
        headers: {
          "set-cookie": `${CONTEXT_COOKIE}=${encodeURIComponent(context)}; Path=/; SameSite=Strict; HttpOnly`,
        },
      },
    );
  });
}
