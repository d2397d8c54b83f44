import { handle, respond } from "@/server/http/respond";
import { clientFor } from "@/server/kube/identity";
import { readUninitialized } from "@/server/kube/uninitialized";
import { uninitializedRoute } from "@/lib/api/initializers";

export const dynamic = "force-dynamic";

/** Objects still waiting for initializers (1.7–1.13 apiservers only), read as the request's identity. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const q = uninitializedRoute.input.parse(Object.fromEntries(new URL(request.url).searchParams));
    return respond(
      uninitializedRoute,
      await readUninitialized(clientFor(request), {
        stuckAfterSeconds: q.stuckAfterSeconds,
        signal: request.signal,
      }),
    );
  });
}
