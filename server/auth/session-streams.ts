import "server-only";
import { createHash } from "node:crypto";
import { liveSession } from "./session-client";

/**
 * Shared mode: the open event streams of each session (the watch stream, the decision stream),
 * so that a session's end ends them all at once. Sign-out ends them on the spot
 * (endSessionStreams); a session that ends any other way — its absolute or idle expiry, a
 * re-validation that failed, a sign-out on another replica sharing the database — is noticed by
 * one process-wide check every SESSION_STREAM_CHECK_MS while any stream is open, well within a
 * second. Without this a stream kept delivering until its next RBAC recheck (15 s or 60 s).
 */

/** How often the sessions holding open streams are looked up while any is open. */
const SESSION_STREAM_CHECK_MS = 400;

interface Owned {
  id: string;
  enders: Set<() => void>;
}

// On globalThis: each route is bundled apart, and sign-out (another route) must reach them.
const g = globalThis as typeof globalThis & {
  portcullisSessionStreams?: Map<string, Owned>;
  portcullisSessionStreamCheck?: NodeJS.Timeout;
};
const owners = (g.portcullisSessionStreams ??= new Map<string, Owned>());

/** Whose stream slots a session's streams take: a digest of its id (never the id itself). */
export function sessionStreamOwner(id: string): string {
  return `session:${createHash("sha256").update(id).digest("base64url").slice(0, 22)}`;
}

/**
 * Registers how to end one open stream of session `id`; returns the (idempotent)
 * unregistration, for when the stream ends otherwise.
 */
export function endWithSession(id: string, end: () => void): () => void {
  const owner = sessionStreamOwner(id);
  let o = owners.get(owner);
  if (!o) {
    o = { id, enders: new Set() };
    owners.set(owner, o);
  }
  o.enders.add(end);
  startChecking();
  const entry = o;
  return () => {
    entry.enders.delete(end);
    if (entry.enders.size === 0 && owners.get(owner) === entry) owners.delete(owner);
  };
}

/** Ends every open stream of session `id` now; returns how many there were. */
export function endSessionStreams(id: string): number {
  const owner = sessionStreamOwner(id);
  const o = owners.get(owner);
  if (!o) return 0;
  owners.delete(owner);
  const ends = [...o.enders];
  for (const end of ends) {
    try {
      end();
    } catch {
      // Already ended by its client.
    }
  }
  return ends.length;
}

let checking = false;

async function checkOnce(): Promise<void> {
  if (checking) return;
  checking = true;
  try {
    for (const o of [...owners.values()]) {
      // A store (or apiserver) that cannot answer ends nothing: the streams' own rechecks still run.
      const live = await liveSession(o.id).then(
        (s) => s !== undefined,
        () => true,
      );
      if (!live) endSessionStreams(o.id);
    }
  } catch {
    // The store could not be opened: try again on the next tick.
  } finally {
    checking = false;
    if (owners.size === 0 && g.portcullisSessionStreamCheck) {
      clearInterval(g.portcullisSessionStreamCheck);
      g.portcullisSessionStreamCheck = undefined;
    }
  }
}

function startChecking(): void {
  if (g.portcullisSessionStreamCheck) return;
  g.portcullisSessionStreamCheck = setInterval(() => void checkOnce(), SESSION_STREAM_CHECK_MS);
  g.portcullisSessionStreamCheck.unref();
}
