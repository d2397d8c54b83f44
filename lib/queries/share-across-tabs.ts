/**
 * One stream for every tab of a browser profile: the tab holding an exclusive Web Lock follows
 * the stream and relays what it hears over a BroadcastChannel of the same name; every tab (the
 * holder too) reacts to the relayed word as it would to its own stream. When the holder stops
 * (its tab closed, navigated away or switched context), the browser releases its lock and a
 * waiting tab takes it and opens the stream: its first connection tells every tab to read again,
 * as a reconnection does. Why: Chromium gives a host 6 HTTP/1.1 connections per profile, and a
 * stream per tab on top of each page's own live stream left the fourth or fifth live tab waiting
 * for a connection for good. Without Web Locks or BroadcastChannel each tab follows its own.
 */

/** What is used of `navigator.locks`. */
export interface LocksLike {
  request(
    name: string,
    options: { mode: "exclusive"; signal?: AbortSignal },
    callback: () => Promise<void>,
  ): Promise<unknown>;
}

/** What is used of a BroadcastChannel: it delivers to the other tabs' channels, not its own. */
export interface ChannelLike {
  postMessage(message: TabMessage): void;
  addEventListener(type: "message", listener: (ev: MessageEvent<unknown>) => void): void;
  close(): void;
}

/** What the tabs tell one another. */
export type TabMessage =
  { type: "change" } | { type: "state"; connected: boolean; answer?: boolean } | { type: "ask" };

/** What a stream tells its follower (followBreakGlass's handlers). */
export interface StreamHandlers {
  onChange: () => void;
  onState: (connected: boolean) => void;
}

interface ShareAcrossTabsOptions {
  /** The lock's and the channel's name: one per stream and kube context. */
  name: string;
  /** Follows the stream with these handlers; returns the function that stops following it. */
  follow: (handlers: StreamHandlers) => () => void;
  /** The stream said something changed (in whichever tab holds it). */
  onChange: () => void;
  /** Whether the stream (in whichever tab holds it) is connected. */
  onState?: (connected: boolean) => void;
  /** `navigator.locks`; absent → this tab follows its own stream. */
  locks?: LocksLike;
  /** Opens the channel (`new BroadcastChannel(name)`); absent → this tab follows its own stream. */
  openChannel?: (name: string) => ChannelLike;
}

function isTabMessage(m: unknown): m is TabMessage {
  if (typeof m !== "object" || m === null) return false;
  const type = (m as { type?: unknown }).type;
  if (type === "change" || type === "ask") return true;
  return type === "state" && typeof (m as { connected?: unknown }).connected === "boolean";
}

/** The browser's Web Locks and BroadcastChannel where both exist, else nothing (the fallback). */
export function browserTabSharing(): Pick<ShareAcrossTabsOptions, "locks" | "openChannel"> {
  if (typeof navigator === "undefined" || typeof BroadcastChannel === "undefined") return {};
  const locks = (navigator as { locks?: LocksLike }).locks;
  if (!locks) return {};
  return { locks, openChannel: (name) => new BroadcastChannel(name) };
}

/** Follows the stream once for all tabs sharing `name`; returns the function that stops this tab. */
export function shareAcrossTabs(opts: ShareAcrossTabsOptions): () => void {
  const onState = opts.onState ?? (() => undefined);
  if (!opts.locks || !opts.openChannel) return opts.follow({ onChange: opts.onChange, onState });

  const channel = opts.openChannel(opts.name);
  const abort = new AbortController();
  let stopped = false;
  let leading = false;
  let connected = false;
  let readOnJoin = false;
  let stepDown: (() => void) | undefined;

  channel.addEventListener("message", (ev) => {
    const m = ev.data;
    if (stopped || !isTabMessage(m)) return;
    if (m.type === "ask") {
      if (leading) channel.postMessage({ type: "state", connected, answer: true });
      return;
    }
    if (leading) return;
    if (m.type === "change") {
      readOnJoin = true;
      opts.onChange();
      return;
    }
    onState(m.connected);
    // The holder's answer to this tab's question on joining: read once, as a connection does.
    if (m.answer && !readOnJoin) {
      readOnJoin = true;
      opts.onChange();
    }
  });

  opts.locks
    .request(opts.name, { mode: "exclusive", signal: abort.signal }, () => {
      if (stopped) return Promise.resolve();
      leading = true;
      readOnJoin = true;
      const tell = (m: TabMessage) => {
        if (!stopped) channel.postMessage(m);
      };
      // The previous holder's stream is gone: not connected until this one opens.
      connected = false;
      tell({ type: "state", connected });
      onState(connected);
      const stopFollowing = opts.follow({
        onChange: () => {
          tell({ type: "change" });
          opts.onChange();
        },
        onState: (c) => {
          connected = c;
          tell({ type: "state", connected: c });
          onState(c);
        },
      });
      return new Promise<void>((resolve) => {
        stepDown = () => {
          stopFollowing();
          leading = false;
          resolve();
        };
      });
    })
    .catch(() => undefined); // aborted while waiting: this tab stopped before its turn

  // A holder already there answers with its state (and this tab reads the list once then).
  channel.postMessage({ type: "ask" });

  return () => {
    if (stopped) return;
    if (leading) channel.postMessage({ type: "state", connected: false });
    stopped = true;
    abort.abort();
    stepDown?.();
    channel.close();
  };
}
