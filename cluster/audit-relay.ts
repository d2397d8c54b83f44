/**
 * The audit sink's TLS front door. kube-apiserver's audit webhook backend sends its bearer token
 * only to an https sink, so the launcher terminates TLS here (as an ingress would in a real
 * deployment) and forwards each batch, Authorization header included, to the dashboard's
 * /api/audit over loopback HTTP.
 */
import http from "node:http";
import https from "node:https";
import { readFileSync } from "node:fs";
import type { CertPair } from "./certs";

export interface AuditRelay {
  port: number;
  /**
   * The control plane is stopping: from now on a batch the dashboard does not take (it is gone,
   * or answers an error) is answered 200 and dropped. The apiserver's shutdown waits for its
   * audit webhook's outstanding batches, each retried with a growing pause for about 16 s: with
   * no dashboard to take them it outlived its 10 s grace and was killed, and the batches were
   * lost all the same.
   */
  drain(): void;
  close(): Promise<void>;
}

const FORWARDED_HEADERS = ["authorization", "content-type", "content-encoding", "content-length"];

/** Starts the relay on 127.0.0.1:`port`, forwarding to `target` (the dashboard's /api/audit URL). */
export async function startAuditRelay(
  port: number,
  cert: CertPair,
  target: string,
): Promise<AuditRelay> {
  let draining = false;
  const server = https.createServer(
    { cert: readFileSync(cert.certFile), key: readFileSync(cert.keyFile) },
    (req, res) => {
      const headers: Record<string, string> = {};
      for (const name of FORWARDED_HEADERS) {
        const v = req.headers[name];
        if (typeof v === "string") headers[name] = v;
      }
      const upstream = http.request(
        target,
        { method: req.method, headers, timeout: 10_000 },
        (up) => {
          if (draining && (up.statusCode ?? 502) >= 500) {
            up.resume();
            res.writeHead(200, { "content-type": "text/plain" });
            res.end("dropped: the control plane is stopping\n");
            return;
          }
          res.writeHead(up.statusCode ?? 502, {
            "content-type": up.headers["content-type"] ?? "text/plain",
          });
          up.pipe(res);
        },
      );
      upstream.on("timeout", () => upstream.destroy(new Error("dashboard did not answer")));
      upstream.on("error", (e) => {
        // The rest of the batch is read and discarded, so the connection can carry the next one.
        req.unpipe(upstream);
        req.resume();
        if (!res.headersSent) res.writeHead(draining ? 200 : 503, { "content-type": "text/plain" });
        res.end(`audit sink unavailable: ${e.message}\n`);
      });
      req.pipe(upstream);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    port,
    drain: () => {
      draining = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
