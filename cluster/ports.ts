/**
 * Free loopback ports. Choosing ports one at a time (bind to 0, close, repeat) can hand out the
 * same port twice; here all sockets stay open until every port is known.
 */
import net from "node:net";

/** Reserves `count` distinct free ports on 127.0.0.1 and releases them together. */
export async function freePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = net.createServer();
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => resolve());
      });
      servers.push(server);
    }
    return servers.map((s) => {
      const addr = s.address();
      if (addr === null || typeof addr === "string") throw new Error("unexpected listen address");
      return addr.port;
    });
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }
}
