import { fail, handle } from "@/server/http/respond";
import { listCollectionRoute } from "@/lib/api/resources";
import { clientFor, contextOf } from "@/server/kube/identity";
import { listCollectionText } from "@/server/kube/list-collection";
import { isSharedMode } from "@/server/kube/config";
import { watchHub } from "@/server/kube/watch-hub";
import type { ServedList } from "@/server/kube/list-body";
import { legacyGroupFromEnv } from "@/lib/k8s/legacy-group";
import { collectionPath, isReadableCollection, type ResourceRef } from "@/lib/k8s/resources";

export const dynamic = "force-dynamic";

/**
 * Lists a collection as the request's identity, as a Kubernetes List (lib/api/resources.ts
 * listCollectionRoute; passed on as bytes, so not through `respond`). Local mode: from the watch hub's copy of the collection — the same snapshot the live
 * stream starts from — whose serialised List is kept between changes, so a request
 * costs no list upstream and no serialisation. Shared mode (the hub holds the service account's
 * view, not the user's), or when the hub cannot list: the apiserver's List passed on unparsed.
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
      return fail(listCollectionRoute, {
        status: 404,
        reason: "NotFound",
        message: "the dashboard does not serve this collection",
      });
    }
    if (!isSharedMode()) {
      const served = await watchHub()
        .list(contextOf(request), collectionPath(ref), request.signal)
        .catch(() => undefined);
      if (served) return listResponse(served);
    }
    // Passed on as text: no parse and re-serialisation of what may be megabytes. (Compression,
    // when the browser asks for it, is the dashboard server's: it re-encodes any upstream one.)
    const text = await listCollectionText(clientFor(request), ref, request.signal);
    return new Response(text, {
      headers: { "content-type": "application/json", "cache-control": "no-store" },
    });
  });
}

/**
 * The kept List's bytes. (Compressed, when the browser asks for it, by the dashboard server as any
 * response is: a route handler's own Content-Encoding is not passed on.)
 */
function listResponse(served: ServedList): Response {
  const bytes = new Uint8Array(
    served.json.buffer as ArrayBuffer,
    served.json.byteOffset,
    served.json.byteLength,
  );
  return new Response(bytes, {
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}
