import { fail, handle, respond } from "@/server/http/respond";
import { objectName, renameConfigurationRoute } from "@/lib/api/webhooks";
import { readJson } from "@/server/http/body";
import { clientFor } from "@/server/kube/identity";
import { renameConfiguration } from "@/server/kube/webhooks";
import { renamableTarget } from "@/server/kube/webhook-input";

export const dynamic = "force-dynamic";

/**
 * Safe rename (a configuration's name decides its place in the order; historical kinds too):
 * create the new name, verify, delete the old; rolls back on any failure.
 */
export async function POST(
  request: Request,
  { params }: { params: Promise<{ resource: string; name: string }> },
): Promise<Response> {
  return handle(async () => {
    const p = await params;
    const r = renamableTarget(p.resource);
    const name = objectName.parse(p.name);
    const input = renameConfigurationRoute.input.parse(await readJson(request));
    const result = await renameConfiguration(
      clientFor(request),
      r,
      name,
      input.newName,
      input.resourceVersion,
      request.signal,
    );
    if (result.ok) return respond(renameConfigurationRoute, result);
    const e = result.error ?? { status: 500, reason: "InternalError", message: "rename failed" };
    return fail(
      renameConfigurationRoute,
      { ...e, steps: result.steps },
      { status: e.status >= 400 ? e.status : 500 },
    );
  });
}
