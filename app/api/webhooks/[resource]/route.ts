import { handle, respond } from "@/server/http/respond";
import { createConfigurationRoute } from "@/lib/api/webhooks";
import { readJson } from "@/server/http/body";
import { clientFor } from "@/server/kube/identity";
import { createConfiguration } from "@/server/kube/webhooks";
import { writableTarget } from "@/server/kube/webhook-input";

export const dynamic = "force-dynamic";

/** Creates a configuration, or dry-runs the create (`dryRun: true`). */
export async function POST(
  request: Request,
  { params }: { params: Promise<{ resource: string }> },
): Promise<Response> {
  return handle(async () => {
    const r = writableTarget((await params).resource);
    const body = createConfigurationRoute.input.parse(await readJson(request));
    const stored = await createConfiguration(clientFor(request), r, body.object, {
      dryRun: body.dryRun,
      signal: request.signal,
    });
    return respond(createConfigurationRoute, stored, { status: body.dryRun ? 200 : 201 });
  });
}
