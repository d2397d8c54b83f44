import { setMaxListeners } from "node:events";
import { handle, respond } from "@/server/http/respond";
import { clientFor } from "@/server/kube/identity";
import {
  readAdmissionObjects,
  readBackendState,
  readDiscovery,
  readNamespaces,
} from "@/server/kube/admission-state";
import { lintStateRoute } from "@/lib/api/webhooks";

export const dynamic = "force-dynamic";

/**
 * What the lint checks that need live state read (namespaces, discovery, the webhooks' services,
 * endpoint slices and pods, the server version), as the request's identity.
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const client = clientFor(request);
    const signal = request.signal;
    // One signal serves discovery and every read in parallel: more than the default ten.
    setMaxListeners(64, signal);
    const notices: string[] = [];
    const [discovery, namespaces] = await Promise.all([
      readDiscovery(client, notices, signal),
      readNamespaces(client, signal),
    ]);
    const objects = await readAdmissionObjects(client, discovery, notices, signal);
    const backends = await readBackendState(
      client,
      [...objects.mutatingWebhookConfigurations, ...objects.validatingWebhookConfigurations],
      notices,
      signal,
    );
    return respond(lintStateRoute, { namespaces, discovery, ...backends, notices });
  });
}
