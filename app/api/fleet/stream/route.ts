import { handle } from "@/server/http/respond";
import { fleetStreamRoute } from "@/lib/api/fleet";
import { fleetStream } from "@/server/fleet/stream";
import { contextOf } from "@/server/kube/identity";

export const dynamic = "force-dynamic";

/**
 * Every cluster the user can reach, read with each one's own credentials and timeout, as
 * Server-Sent Events: rows as they arrive, and again when a cluster's configuration changes.
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    // The tab's own context (and in shared mode its session), as every route takes it.
    contextOf(request);
    const { timeoutMs } = fleetStreamRoute.input.parse(
      Object.fromEntries(new URL(request.url).searchParams),
    );
    return fleetStream(request, timeoutMs);
  });
}
