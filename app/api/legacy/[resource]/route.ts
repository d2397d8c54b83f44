import { handle, json } from "@/server/http/respond";
import { readJson } from "@/server/http/body";
import { clientFor } from "@/server/kube/identity";
import { createConfiguration } from "@/server/kube/webhooks";
import { writeBody } from "@/server/kube/webhook-input";
import { legacyResource, legacyTarget } from "@/server/kube/legacy-admission";

export const dynamic = "force-dynamic";

/** Creates a historical admission configuration, or dry-runs the create (`dryRun: true`). */
export async function POST(
  request: Request,
  { params }: { params: Promise<{ resource: string }> },
): Promise<Response> {
  return handle(async () => {
    const t = legacyTarget(legacyResource((await params).resource));
    const body = writeBody.parse(await readJson(request));
    const stored = await createConfiguration(clientFor(request), t, body.object, {
      dryRun: body.dryRun,
      signal: request.signal,
    });
    return json(stored, { status: body.dryRun ? 200 : 201 });
  });
}
