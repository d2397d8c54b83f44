import { handle } from "@/server/http/respond";
import { BREAK_GLASS_EVENT, type breakGlassStreamRoute } from "@/lib/api/break-glass";
import type { ResponseOf } from "@/lib/api/contract";
import { streamOwnerOf, streamSessionOf } from "@/server/kube/identity";
import { endWithSession } from "@/server/auth/session-streams";
import { endOnShutdown } from "@/server/http/shutdown";
import { HEARTBEAT_TEXT, STREAM_HEARTBEAT_MS } from "@/lib/api/streams";
import {
  claimStreamSlot,
  eventStreamResponse,
  streamQueuingStrategy,
} from "@/server/kube/live-stream";
import { subscribeBreakGlass } from "@/server/break-glass/events";

export const dynamic = "force-dynamic";

/**
 * Server-Sent Events: `event: break-glass` whenever the episodes change (server/break-glass/events),
 * and the heartbeat. The events carry no episode — the banner reads the list route, which decides
 * what the user may see — so the stream asks no more of its user than the request policy does.
 * Each stream takes one of its owner's stream slots (the context's; in shared mode the session's).
 */
export async function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const release = claimStreamSlot(streamOwnerOf(request));
    const encoder = new TextEncoder();
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
          const unsubscribe = subscribeBreakGlass(() => {
            const msg: ResponseOf<typeof breakGlassStreamRoute> = { at: Date.now() };
            write(`event: ${BREAK_GLASS_EVENT}\ndata: ${JSON.stringify(msg)}\n\n`);
          });
          const heartbeat = setInterval(() => write(HEARTBEAT_TEXT), STREAM_HEARTBEAT_MS);
          const unregister = endOnShutdown(close);
          const session = streamSessionOf(request);
          const unregisterSession = session ? endWithSession(session, close) : () => undefined;
          cleanup = () => {
            release();
            unregister();
            unregisterSession();
            unsubscribe();
            clearInterval(heartbeat);
          };
          request.signal.addEventListener("abort", close);
          write("retry: 1000\n: connected\n\n");
        },
        cancel() {
          cleanup();
        },
      },
      streamQueuingStrategy(),
    );
    return eventStreamResponse(stream);
  });
}
