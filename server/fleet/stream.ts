import "server-only";
import { SHARED_CONTEXT } from "@/lib/auth/mode";
import { HEARTBEAT_TEXT, STREAM_HEARTBEAT_MS } from "@/lib/api/streams";
import type { FleetStreamMessage } from "@/lib/api/fleet";
import { isSharedMode, listContexts, sharedApiserver } from "@/server/kube/config";
import { kubeClientFor } from "@/server/kube/client";
import {
  authorizeCollections,
  clientFor,
  streamOwnerOf,
  streamSessionOf,
} from "@/server/kube/identity";
import {
  claimStreamSlot,
  eventStreamResponse,
  streamQueuingStrategy,
} from "@/server/kube/live-stream";
import { endOnShutdown } from "@/server/http/shutdown";
import { endWithSession } from "@/server/auth/session-streams";
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
  const release = claimStreamSlot(streamOwnerOf(request));
  const encoder = new TextEncoder();
  const abort = new AbortController();
  let cleanup = () => undefined as void;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let closed = false;
        const close = () => {
          if (closed) return;
          closed = true;
          cleanup();
          try {
            controller.close();
          } catch {
            // already closed by the client
          }
        };
        const write = (text: string) => {
          if (closed) return;
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            close();
          }
        };
        const send = (m: FleetStreamMessage) => {
          if ((controller.desiredSize ?? 0) < 0) {
            // A browser that does not read: it reconnects and starts again.
            close();
            return;
          }
          write(`event: ${m.type}\ndata: ${JSON.stringify(m)}\n\n`);
        };
        const heartbeat = setInterval(() => write(HEARTBEAT_TEXT), STREAM_HEARTBEAT_MS);
        const unregister = endOnShutdown(close);
        const session = streamSessionOf(request);
        const unregisterSession = session ? endWithSession(session, close) : () => undefined;
        cleanup = () => {
          abort.abort();
          release();
          unregister();
          unregisterSession();
          clearInterval(heartbeat);
        };
        request.signal.addEventListener("abort", close);
        write("retry: 2000\n: connected\n\n");
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
        }).catch(() => close());
      },
      cancel() {
        cleanup();
      },
    },
    streamQueuingStrategy(),
  );
  return eventStreamResponse(stream);
}
