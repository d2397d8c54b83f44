import { handle, json, errorResponse } from "@/server/http/respond";
import { clientFor } from "@/server/kube/identity";
import { collectionPath, isReadableCollection, type ResourceRef } from "@/lib/k8s/resources";

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
    if (!isReadableCollection(ref)) {
      return errorResponse({
        status: 404,
        reason: "NotFound",
        message: "the dashboard does not serve this collection",
        cluster: "",
      });
    }
    const client = clientFor(request);
    const list = await client.request<{
      apiVersion?: string;
      kind?: string;
      items: Array<Record<string, unknown>>;
      metadata?: { resourceVersion?: string };
    }>({ path: collectionPath(ref), signal: request.signal });
    const kind = list.kind?.replace(/List$/, "");
    return json({
      resourceVersion: list.metadata?.resourceVersion ?? "",
      items: list.items.map((i) => ({ apiVersion: list.apiVersion, kind, ...i })),
    });
  });
}
