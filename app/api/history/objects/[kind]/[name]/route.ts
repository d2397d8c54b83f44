import { z } from "zod";
import { handle, respond } from "@/server/http/respond";
import { authorizeDecisionsRead } from "@/server/audit/access";
import { contextOf } from "@/server/kube/identity";
import { startWatching, timelineOf } from "@/server/history/service";
import { historyTimelineRoute } from "@/lib/api/history";
import { HISTORY_KINDS, type HistoryKind } from "@/lib/admission/history/kinds";

export const dynamic = "force-dynamic";

const kind = z.enum(HISTORY_KINDS as [HistoryKind, ...HistoryKind[]]);

/**
 * One admission object's changes, newest first, each with its field diff. Changes carry who made
 * them: read only by identities that may read the decisions (the same non-resource URL).
 */
export async function GET(
  request: Request,
  { params }: { params: Promise<{ kind: string; name: string }> },
): Promise<Response> {
  return handle(async () => {
    const p = await params;
    const k = kind.parse(p.kind);
    const page = historyTimelineRoute.input.parse(
      Object.fromEntries(new URL(request.url).searchParams),
    );
    await authorizeDecisionsRead(request);
    await startWatching(contextOf(request));
    return respond(historyTimelineRoute, await timelineOf(k, p.name, page));
  });
}
