import { handle } from "@/server/http/respond";
import { renameResponse } from "@/server/http/rename";
import { clientFor } from "@/server/kube/identity";
import { webhookResource } from "@/server/kube/webhook-input";

export const dynamic = "force-dynamic";

/** Safe rename: create the new name, verify, delete the old; rolls back on any failure. */
export async function POST(
  request: Request,
  { params }: { params: Promise<{ resource: string; name: string }> },
): Promise<Response> {
  return handle(async () => {
    const p = await params;
    return renameResponse(request, clientFor(request), webhookResource(p.resource), p.name);
  });
}
