import { handle, respond } from "@/server/http/respond";
import { breakGlassPreviewRoute } from "@/lib/api/break-glass";
import { clientFor } from "@/server/kube/identity";
import { preview } from "@/server/break-glass/service";

export const dynamic = "force-dynamic";

/** What a break-glass on a configuration would meet: the identity's access, the controllers. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const input = breakGlassPreviewRoute.input.parse(
      Object.fromEntries(new URL(request.url).searchParams),
    );
    return respond(
      breakGlassPreviewRoute,
      await preview(clientFor(request), input, request.signal),
    );
  });
}
