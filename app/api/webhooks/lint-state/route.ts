import { handle, respond } from "@/server/http/respond";
import { clientFor, contextOf } from "@/server/kube/identity";
import { readLintState } from "@/server/engines/lint-state";
import { lintStateRoute } from "@/lib/api/webhooks";

export const dynamic = "force-dynamic";

/**
 * What the lint checks that need live state read (namespaces, discovery, the webhooks' services,
 * endpoint slices and pods, the server version, the policy engines' policies), as the request's
 * identity.
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () =>
    respond(
      lintStateRoute,
      await readLintState({
        client: clientFor(request),
        context: contextOf(request),
        signal: request.signal,
      }),
    ),
  );
}
