import { handle, respond } from "@/server/http/respond";
import { overviewRoute } from "@/lib/api/overview";
import { clientFor } from "@/server/kube/identity";
import { admissionApis, serverVersion } from "@/server/kube/discovery";

export const dynamic = "force-dynamic";

/** Cluster version and the admission APIs it serves, read from discovery as the request's identity. */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const client = clientFor(request);
    const [version, apis] = await Promise.all([
      serverVersion(client, request.signal),
      admissionApis(client, request.signal),
    ]);
    return respond(overviewRoute, {
      context: client.context,
      server: client.server,
      version,
      apis,
    });
  });
}
