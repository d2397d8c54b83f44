import "server-only";

/**
 * Ending the dashboard's open event streams when its process is asked to stop. A stream never ends
 * on its own, and a server told to stop (SIGTERM from Kubernetes or a container runtime, Ctrl-C in
 * a terminal) first waits for every open response: one browser tab left open kept the dashboard
 * running until it was killed. Each open stream registers how to end itself; `endOpenStreams`
 * (run on SIGTERM and SIGINT once `endOpenStreamsOnSignals` has run, at server start) ends them
 * all, so the server finishes the requests in flight and exits. A browser's EventSource then
 * reconnects on its own, to whatever serves the dashboard next.
 */

interface Streams {
  ending: boolean;
  enders: Set<() => void>;
  onSignals?: boolean;
}

// On globalThis: each route is bundled apart, and the signal handler is registered elsewhere.
const g = globalThis as typeof globalThis & { portcullisOpenStreamEnders?: Streams };

function streams(): Streams {
  return (g.portcullisOpenStreamEnders ??= { ending: false, enders: new Set() });
}

/**
 * Registers how to end one open stream; returns the (idempotent) unregistration, for when the
 * stream ends otherwise. A stream opened once stopping has begun is ended right away.
 */
export function endOnShutdown(end: () => void): () => void {
  const s = streams();
  if (s.ending) {
    queueMicrotask(end);
    return () => undefined;
  }
  s.enders.add(end);
  return () => {
    s.enders.delete(end);
  };
}

/** Ends every open stream, and any opened from now on; returns how many were open. */
export function endOpenStreams(): number {
  const s = streams();
  s.ending = true;
  const open = [...s.enders];
  s.enders.clear();
  for (const end of open) {
    try {
      end();
    } catch {
      // Already ended by its client.
    }
  }
  return open.length;
}

/**
 * Runs `endOpenStreams` when the process gets SIGTERM or SIGINT (once per process, however often
 * it is called). It neither exits nor stops the server: Next's own handlers for the same signals
 * close the server and exit once its responses have ended.
 */
export function endOpenStreamsOnSignals(): void {
  const s = streams();
  if (s.onSignals) return;
  s.onSignals = true;
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => endOpenStreams());
}
