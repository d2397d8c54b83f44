import "server-only";
import { SHARED_CONTEXT } from "@/lib/auth/mode";
import type { FleetStreamMessage } from "@/lib/api/fleet";
import { isSharedMode, listContexts, sharedApiserver } from "@/server/kube/config";
import { kubeClientFor } from "@/server/kube/client";
import {
  authorizeCollections,
  clientFor,
  streamOwnerOf,
  streamSessionOf,
} from "@/server/kube/identity";
import { openEventStream } from "@/server/http/event-stream";
import { defaultFleetTimeoutMs, fleetConcurrency, runFleet, type FleetTarget } from "./fleet";

/**
 * The context whose apiserver sends its audit events to this dashboard, so whose decisions the
 * store holds: PORTCULLIS_DECISIONS_CONTEXT in local mode; in shared mode the one cluster.
 */
function decisionsContext(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (isSharedMode()) return SHARED_CONTEXT;
  return env.PORTCULLIS_DECISIONS_CONTEXT || undefined;
}

/**
 * The clusters a request may read: in local mode every context of the kubeconfig (the user's
 * own); in shared mode the one cluster, as the signed-in user (never the dashboard's identity).
 */
function targetsFor(request: Request): FleetTarget[] {
  if (isSharedMode()) {
    const client = clientFor(request);
    return [{ context: SHARED_CONTEXT, server: sharedApiserver().server, client: () => client }];
  }
  return listContexts().map((c) => ({
    context: c.name,
    server: c.server,
    client: () => kubeClientFor(c.name),
  }));
}

/**
 * The fleet as Server-Sent Events (`event: fleet`, then `row` as each cluster's read ends and
 * whenever one changes, `settled` once every first read has ended). The request names its tab's
 * context as any other (it takes one of that context's stream slots); in shared mode it must
 * carry a session.
 */
export function fleetStream(request: Request, timeoutMs: number | undefined): Response {
  const targets = targetsFor(request);
  const session = streamSessionOf(request);
  return openEventStream({
    owner: streamOwnerOf(request),
    signal: request.signal,
    retryMs: 2000,
    ...(session ? { session } : {}),
    start(w) {
      const abort = new AbortController();
      const send = (m: FleetStreamMessage) => {
        // A browser that does not read: it reconnects and starts again.
        if (w.behind()) w.end();
        else w.send(m.type, m);
      };
      const shared = isSharedMode();
      void runFleet({
        targets,
        timeoutMs: timeoutMs ?? defaultFleetTimeoutMs(),
        concurrency: fleetConcurrency(),
        decisionsContext: decisionsContext(),
        live: {
          hubContext: (context) => (shared ? SHARED_CONTEXT : context),
          ...(shared ? { authorize: (refs) => authorizeCollections(request, refs) } : {}),
        },
        signal: abort.signal,
        send,
      }).catch(() => w.end());
      return () => abort.abort();
    },
  });
}
