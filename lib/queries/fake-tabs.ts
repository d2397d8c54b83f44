/**
 * In-memory stand-ins for one browser profile's Web Locks and BroadcastChannels, for the unit
 * tests of what tabs share (share-across-tabs.ts, stream-slots.ts). Locks are exclusive and
 * granted in request order; a channel delivers to the profile's other open channels of its name.
 */

interface LockOptions {
  mode: "exclusive";
  ifAvailable?: boolean;
  signal?: AbortSignal;
}

/** The locks of one browser profile (what `navigator.locks` does with exclusive locks). */
export function fakeLocks() {
  const held = new Set<string>();
  const waiting = new Map<string, Array<() => void>>();
  const next = (name: string) => {
    const q = waiting.get(name) ?? [];
    const grant = q.shift();
    if (grant) grant();
  };
  return {
    /** Which locks are held now. */
    held,
    request(
      name: string,
      options: LockOptions,
      callback: (lock: unknown) => Promise<void>,
    ): Promise<unknown> {
      return new Promise((resolve, reject) => {
        if (options.ifAvailable && held.has(name)) {
          void Promise.resolve()
            .then(() => callback(null))
            .then(resolve, reject);
          return;
        }
        let granted = false;
        const grant = () => {
          granted = true;
          held.add(name);
          void Promise.resolve()
            .then(() => callback({ name }))
            .then(resolve, reject)
            .finally(() => {
              held.delete(name);
              next(name);
            });
        };
        options.signal?.addEventListener("abort", () => {
          if (granted) return;
          waiting.set(
            name,
            (waiting.get(name) ?? []).filter((g) => g !== grant),
          );
          reject(new DOMException("aborted", "AbortError"));
        });
        if (held.has(name)) waiting.set(name, [...(waiting.get(name) ?? []), grant]);
        else grant();
      });
    },
  };
}

/** A channel as the code under test sees it. */
export interface FakeChannel<M> {
  postMessage(message: M): void;
  addEventListener(type: "message", listener: (ev: MessageEvent<unknown>) => void): void;
  close(): void;
}

/** The BroadcastChannels of one profile: a message reaches the other open channels of its name. */
export function fakeChannels<M>(): (name: string) => FakeChannel<M> {
  const open = new Set<{ name: string; deliver: (m: M) => void }>();
  return (name: string) => {
    const listeners: Array<(ev: MessageEvent<unknown>) => void> = [];
    const me = {
      name,
      deliver: (m: M) => {
        for (const l of listeners) l({ data: m } as MessageEvent<unknown>);
      },
    };
    open.add(me);
    return {
      postMessage(m: M) {
        for (const c of [...open]) {
          if (c !== me && c.name === name) queueMicrotask(() => open.has(c) && c.deliver(m));
        }
      },
      addEventListener(_type: "message", listener: (ev: MessageEvent<unknown>) => void) {
        listeners.push(listener);
      },
      close() {
        open.delete(me);
      },
    };
  };
}

/** Lets queued microtasks (lock grants, channel deliveries) run. */
export async function settle() {
  for (let i = 0; i < 50; i++) await Promise.resolve();
}
