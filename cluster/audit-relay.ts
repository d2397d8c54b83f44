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
  close(): Promise<void>;
}

const FORWARDED_HEADERS = ["authorization", "content-type", "content-encoding", "content-length"];

/** Starts the relay on 127.0.0.1:`port`, forwarding to `target` (the dashboard's /api/audit URL). */
export async function startAuditRelay(
  port: number,
  cert: CertPair,
  target: string,
): Promise<AuditRelay> {
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
          res.writeHead(up.statusCode ?? 502, {
            "content-type": up.headers["content-type"] ?? "text/plain",
          });
          up.pipe(res);
        },
      );
      upstream.on("timeout", () => upstream.destroy(new Error("dashboard did not answer")));
      upstream.on("error", (e) => {
        if (!res.headersSent) res.writeHead(503, { "content-type": "text/plain" });
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
