import { handle, json, errorResponse } from "@/server/http/respond";
import { clientFor } from "@/server/kube/identity";
import { listCollection } from "@/server/kube/collections";
import { legacyGroupFromEnv } from "@/lib/k8s/legacy-group";
import { isReadableCollection, type ResourceRef } from "@/lib/k8s/resources";

export const dynamic = "force-dynamic";

/** Lists a collection as the request's identity (items carry apiVersion and kind). */
export async function GET(
  request: Request,
  { params }: { params: Promise<{ group: string; version: string; resource: string }> },
): Promise<Response> {
  return handle(async () => {
    const p = await params;
    const ref: ResourceRef = {
      group: p.group === "core" ? "" : p.group,
      version: p.version,
      resource: p.resource,
    };
    if (!isReadableCollection(ref, legacyGroupFromEnv())) {
      return errorResponse({
        status: 404,
        reason: "NotFound",
        message: "the dashboard does not serve this collection",
        cluster: "",
      });
    }
    return json(await listCollection(clientFor(request), ref, request.signal));
  });
}
