import { handle, respond } from "@/server/http/respond";
import { breakGlassListRoute, breakGlassStartRoute } from "@/lib/api/break-glass";
import { readJson } from "@/server/http/body";
import { clientFor } from "@/server/kube/identity";
import { listEpisodes, startBreakGlass } from "@/server/break-glass/service";

export const dynamic = "force-dynamic";

/** Active break-glass episodes and those waiting for an answer (the banner's). */
export async function GET(request: Request): Promise<Response> {
  return handle(async () =>
    respond(breakGlassListRoute, await listEpisodes(clientFor(request), request.signal)),
  );
}

/** Lets a configuration's writes through for a bounded time, as the request's identity. */
export async function POST(request: Request): Promise<Response> {
  return handle(async () => {
    const client = clientFor(request);
    const input = breakGlassStartRoute.input.parse(await readJson(request));
    return respond(breakGlassStartRoute, await startBreakGlass(client, input, request.signal), {
      status: 201,
    });
  });
}
