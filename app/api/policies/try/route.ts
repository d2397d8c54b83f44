import { z } from "zod";
import { handle, json } from "@/server/http/respond";
import { readJson } from "@/server/http/body";
import { clientFor } from "@/server/kube/identity";
import { dryRunCreate } from "@/server/kube/try-request";

export const dynamic = "force-dynamic";

const body = z.object({
  object: z
    .object({
      apiVersion: z.string().min(1).max(253),
      kind: z.string().min(1).max(63),
      metadata: z.record(z.string(), z.unknown()).optional(),
    })
    .passthrough(),
});

/** Dry-run create of any object as the request's identity: what admission would say, nothing stored. */
export async function POST(request: Request): Promise<Response> {
  return handle(async () => {
    const input = body.parse(await readJson(request));
    return json(await dryRunCreate(clientFor(request), input.object, request.signal));
  });
}
