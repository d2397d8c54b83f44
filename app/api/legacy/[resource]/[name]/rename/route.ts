import { handle } from "@/server/http/respond";
import { renameResponse } from "@/server/http/rename";
import { clientFor } from "@/server/kube/identity";
import { legacyResource, legacyTarget } from "@/server/kube/legacy-admission";

export const dynamic = "force-dynamic";

/**
 * Safe rename of a historical configuration (its name decides where its hooks sit in the merged
 * order): create the new name, verify, delete the old; rolls back on any failure.
 */
export async function POST(
  request: Request,
  { params }: { params: Promise<{ resource: string; name: string }> },
): Promise<Response> {
  return handle(async () => {
    const p = await params;
    return renameResponse(
      request,
      clientFor(request),
      legacyTarget(legacyResource(p.resource)),
      p.name,
    );
  });
}
