import { z } from "zod";
import { handle, json } from "@/server/http/respond";
import { clientFor } from "@/server/kube/identity";
import { readUninitialized } from "@/server/kube/uninitialized";
import { DEFAULT_STUCK_AFTER_SECONDS } from "@/lib/admission/historical/uninitialized";

export const dynamic = "force-dynamic";

const query = z.object({
  stuckAfterSeconds: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3600)
    .default(DEFAULT_STUCK_AFTER_SECONDS),
});

/** Objects still waiting for initializers (1.7–1.13 apiservers only), read as the request's identity. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const q = query.parse(Object.fromEntries(new URL(request.url).searchParams));
    return json(
      await readUninitialized(clientFor(request), {
        stuckAfterSeconds: q.stuckAfterSeconds,
        signal: request.signal,
      }),
    );
  });
}
