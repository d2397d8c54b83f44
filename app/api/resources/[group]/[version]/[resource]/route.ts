import { handle, errorResponse } from "@/server/http/respond";
import { clientFor } from "@/server/kube/identity";
import { listCollectionText } from "@/server/kube/collections";
import { legacyGroupFromEnv } from "@/lib/k8s/legacy-group";
import { isReadableCollection, type ResourceRef } from "@/lib/k8s/resources";

export const dynamic = "force-dynamic";

/**
 * Lists a collection as the request's identity: the apiserver's List, passed on as it came
 * (lib/queries/kube-list.ts KubeList; its items carry no apiVersion and kind).
 */
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
    // Passed on as text: no parse and re-serialisation of what may be megabytes. (Compression,
    // when the browser asks for it, is the dashboard server's: it re-encodes any upstream one.)
    const text = await listCollectionText(clientFor(request), ref, request.signal);
    return new Response(text, {
      headers: { "content-type": "application/json", "cache-control": "no-store" },
    });
  });
}
