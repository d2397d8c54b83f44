/**
 * A TCP relay in front of a real server, for tests of a network that fails the way real ones do:
 * `freezeNewest` makes the most recently opened connection go silent in both directions without
 * closing it (a half-open connection, as a crashed node or a dropped load-balancer entry leaves
 * behind): nothing sent on it arrives, not even the server's close. `cut` drops every connection
 * and refuses new ones until `restore` (the server's network gone, then back). `resetNextReuse`
 * closes the first of the connections open (and answered on) now that the client writes on again
 * — a kept-alive connection the server (or a load balancer in between) dropped while it sat idle,
 * which the client learns of only when it reuses it. Bytes pass through untouched (TLS included),
 * so the client still talks to the real server.
 */
import net from "node:net";

export interface TcpRelay {
  port: number;
  /** Freezes the newest open connection; returns false when none is open. */
  freezeNewest(): boolean;
  cut(): void;
  restore(): void;
  resetNextReuse(): void;
  close(): Promise<void>;
}

export async function startTcpRelay(host: string, port: number): Promise<TcpRelay> {
  const open: Array<{
    client: net.Socket;
    upstream: net.Socket;
    frozen: boolean;
    answered: boolean;
  }> = [];
  /** Connections that `resetNextReuse` armed: the first the client writes on again is closed. */
  let armed = new Set<object>();
  let refusing = false;
  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(port, host);
    const pair = { client, upstream, frozen: false, answered: false };
    upstream.on("data", () => (pair.answered = true));
    client.on("data", () => {
      if (!armed.has(pair)) return;
      armed = new Set();
      pair.frozen = true; // nothing more passes
      client.destroy();
      upstream.destroy();
    });
    open.push(pair);
    const forward = (from: net.Socket, to: net.Socket) => {
      from.on("data", (chunk) => {
        if (!pair.frozen) to.write(chunk);
      });
      from.on("end", () => {
        if (!pair.frozen) to.end();
      });
      from.on("error", () => {
        if (!pair.frozen) to.destroy();
      });
      from.on("close", () => {
        const i = open.indexOf(pair);
        if (!pair.frozen && i >= 0) open.splice(i, 1);
      });
    };
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    freezeNewest() {
      const live = open.filter((p) => !p.frozen && !p.client.destroyed && !p.upstream.destroyed);
      const newest = live[live.length - 1];
      if (!newest) return false;
      newest.frozen = true;
      return true;
    },
    cut() {
      refusing = true;
      for (const p of open.splice(0)) {
        p.client.destroy();
        p.upstream.destroy();
      }
    },
    restore() {
      refusing = false;
    },
    resetNextReuse() {
      armed = new Set(open.filter((p) => p.answered && !p.frozen && !p.client.destroyed));
    },
    close: async () => {
      for (const p of open) {
        p.client.destroy();
        p.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
