/**
 * A few of the browser's connections to the dashboard for all the live streams of a browser
 * profile. Chromium and Firefox give a host 6 HTTP/1.1 connections per profile, and an open
 * EventSource holds one for as long as it is open: five or six live tabs left no connection for
 * any page's own requests, and the next tab did not even load. So each page's live stream first
 * takes one of STREAM_SLOTS exclusive Web Locks, leaving the rest of the connections to page loads,
 * reads and the break-glass banner's one stream (share-across-tabs.ts).
 *
 * - A stream that gets no slot waits (`waiting`) and says so to the other tabs.
 * - A stream in a tab in the background gives its slot up when another tab waits for one
 *   (`background`), and asks for one again when its tab is shown.
 * - A tab that closes or navigates away releases its slots with its document.
 *
 * Without Web Locks or BroadcastChannel every stream opens at once, as before.
 */

/** How many page streams of one browser profile are open at once. */
export const STREAM_SLOTS = 3;

/** `held`: the stream may open. `waiting`: every slot is taken. `background`: given up while hidden. */
export type SlotState = "held" | "waiting" | "background";

/** What is used of `navigator.locks`: a callback given null when `ifAvailable` finds it taken. */
interface SlotLocks {
  request(
    name: string,
    options: { mode: "exclusive"; ifAvailable?: boolean; signal?: AbortSignal },
    callback: (lock: unknown) => Promise<void>,
  ): Promise<unknown>;
}

/** What the streams' slots tell one another. */
export type SlotMessage = { type: "want" } | { type: "hidden" };

/** What is used of a BroadcastChannel: it delivers to the other channels of its name. */
interface SlotChannel {
  postMessage(message: SlotMessage): void;
  addEventListener(type: "message", listener: (ev: MessageEvent<unknown>) => void): void;
  close(): void;
}

/** Whether the tab is hidden, and a way to hear when that changes. */
interface Visibility {
  hidden(): boolean;
  /** Calls `changed` on each change; returns the function that stops that. */
  subscribe(changed: () => void): () => void;
}

export interface StreamSlotOptions {
  /** Each change of this stream's slot; `held` first when no slot sharing is possible. */
  onState: (state: SlotState) => void;
  /** `navigator.locks`; absent → the stream opens at once. */
  locks?: SlotLocks;
  /** Opens the channel (`new BroadcastChannel(name)`); absent → the stream opens at once. */
  openChannel?: (name: string) => SlotChannel;
  visibility?: Visibility;
  slots?: number;
  /** The locks' and the channel's name. */
  name?: string;
}

function isSlotMessage(m: unknown): m is SlotMessage {
  if (typeof m !== "object" || m === null) return false;
  const type = (m as { type?: unknown }).type;
  return type === "want" || type === "hidden";
}

/** Takes a slot for one stream (or waits for one); returns the function that gives it back. */
export function holdStreamSlot(opts: StreamSlotOptions): () => void {
  const { locks, openChannel } = opts;
  if (!locks || !openChannel) {
    opts.onState("held");
    return () => undefined;
  }
  const count = Math.max(1, opts.slots ?? STREAM_SLOTS);
  const name = opts.name ?? "portcullis:stream-slot";
  const channel = openChannel(name);
  const hidden = () => opts.visibility?.hidden() ?? false;
  let stopped = false;
  let state: SlotState | undefined;
  /** Gives the held slot back; set while one is held. */
  let release: (() => void) | undefined;
  /** Aborts the requests queued for every slot; set while waiting. */
  let queued: AbortController | undefined;

  const set = (s: SlotState) => {
    if (stopped || s === state) return;
    state = s;
    opts.onState(s);
  };

  const granted = (lock: unknown): Promise<void> => {
    // Taken (asked ifAvailable), a second slot granted to a stream that holds one, or stopped.
    if (lock === null || lock === undefined || stopped || release) return Promise.resolve();
    queued?.abort();
    queued = undefined;
    return new Promise<void>((resolve) => {
      release = () => {
        release = undefined;
        resolve();
      };
      set("held");
      // Granted while hidden: a tab that waits in front of the user should have it.
      if (hidden()) channel.postMessage({ type: "hidden" });
    });
  };

  const wait = () => {
    if (stopped || release || queued) return;
    const ac = new AbortController();
    queued = ac;
    set("waiting");
    for (let i = 0; i < count; i++) {
      locks
        .request(`${name}:${i}`, { mode: "exclusive", signal: ac.signal }, granted)
        .catch(() => undefined); // aborted: another slot came first, or the stream stopped
    }
    channel.postMessage({ type: "want" });
  };

  /** A free slot now, trying each in turn, else waits for whichever frees first. */
  const take = (i: number) => {
    if (stopped || release || queued) return;
    if (i >= count) {
      wait();
      return;
    }
    locks
      .request(`${name}:${i}`, { mode: "exclusive", ifAvailable: true }, (lock) => {
        if (lock === null) {
          take(i + 1);
          return Promise.resolve();
        }
        return granted(lock);
      })
      .catch(() => undefined);
  };

  channel.addEventListener("message", (ev) => {
    const m = ev.data;
    if (stopped || !isSlotMessage(m)) return;
    if (m.type === "want" && release && hidden()) {
      release();
      set("background");
    } else if (m.type === "hidden" && queued) {
      channel.postMessage({ type: "want" });
    }
  });

  const unsubscribe = opts.visibility?.subscribe(() => {
    if (stopped) return;
    if (!hidden()) {
      if (state === "background") take(0);
    } else if (release) {
      // Hidden while holding one: a tab already waiting asks for it.
      channel.postMessage({ type: "hidden" });
    }
  });

  take(0);

  return () => {
    if (stopped) return;
    stopped = true;
    unsubscribe?.();
    queued?.abort();
    release?.();
    channel.close();
  };
}

/** The browser's Web Locks, BroadcastChannel and page visibility where they exist. */
export function browserStreamSlots(): Pick<
  StreamSlotOptions,
  "locks" | "openChannel" | "visibility"
> {
  if (typeof navigator === "undefined" || typeof BroadcastChannel === "undefined") return {};
  const locks = (navigator as { locks?: SlotLocks }).locks;
  if (!locks || typeof document === "undefined") return {};
  return {
    locks,
    openChannel: (name) => new BroadcastChannel(name),
    visibility: {
      hidden: () => document.visibilityState === "hidden",
      subscribe: (changed) => {
        document.addEventListener("visibilitychange", changed);
        return () => document.removeEventListener("visibilitychange", changed);
      },
    },
  };
}
