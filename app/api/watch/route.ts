import { fail, handle } from "@/server/http/respond";
import { watchRoute } from "@/lib/api/resources";
import {
  authorizeCollections,
  collectionsRecheck,
  contextOf,
  streamOwnerOf,
  streamSessionOf,
} from "@/server/kube/identity";
import { openLiveStream } from "@/server/kube/live-stream";
import { legacyGroupFromEnv } from "@/lib/k8s/legacy-group";
import { isReadableCollection, parseRef, type ResourceRef } from "@/lib/k8s/resources";

export const dynamic = "force-dynamic";

const MAX_COLLECTIONS = 16;

/**
 * Server-Sent Events: live changes to the named collections (`?r=group/version/resource`,
 * repeated, and `?context=`), from the shared watch hub. Each message is
 * `{ collection, ...HubEvent }`; a SYNC message replaces the collection (first message, and again
 * after a relist). A first snapshot at the resourceVersion the browser names for it (`?rv=`, one
 * per `r`) is sent as CURRENT, without its items. Only collections the cluster's discovery serves are watched.
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const search = new URL(request.url).searchParams;
    const names = search.getAll("r");
    // `rv`, one per `r` in the same order: the resourceVersion the browser holds ("" for none).
    const held = search.getAll("rv");
    const refs = names.map((n) => parseRef(n));
    if (
      names.length === 0 ||
      names.length > MAX_COLLECTIONS ||
      refs.some((r) => !r || !isReadableCollection(r, legacyGroupFromEnv()))
    ) {
      return fail(watchRoute, {
        status: 400,
        reason: "BadRequest",
        message: `name 1–${MAX_COLLECTIONS} readable collections with ?r=group/version/resource`,
      });
    }
    const context = contextOf(request);
    await authorizeCollections(request, refs as ResourceRef[]);
    return openLiveStream(context, refs as ResourceRef[], request.signal, {
      owner: streamOwnerOf(request),
      recheck: collectionsRecheck(request, refs as ResourceRef[]),
      held: names.map((_, i) => held[i] ?? ""),
      session: streamSessionOf(request),
    });
  });
}
