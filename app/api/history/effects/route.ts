import { handle, respond } from "@/server/http/respond";
import { authorizeDecisionsRead } from "@/server/audit/access";
import { contextOf } from "@/server/kube/identity";
import { effectsOf, startWatching } from "@/server/history/service";
import { historyEffectsRoute } from "@/lib/api/history";

export const dynamic = "force-dynamic";

/** A hook's decisions over time, the changes of its configuration, and each change's before/after. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const q = historyEffectsRoute.input.parse(
      Object.fromEntries(new URL(request.url).searchParams),
    );
    await authorizeDecisionsRead(request);
    await startWatching(contextOf(request));
    return respond(historyEffectsRoute, await effectsOf(q));
  });
}
