import "server-only";
import { readFileSync, unwatchFile, watchFile, type Stats } from "node:fs";
import https from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import { auditTlsSettings, type AuditTlsSettings } from "@/lib/http/audit-tls-settings";
import { fail } from "@/server/http/respond";
import { auditSinkRoute } from "@/lib/api/audit";
import { authorizeAuditClient, receiveAuditBatch, type PeerCertificate } from "./sink";

/**
 * The audit sink's own HTTPS listener, for an apiserver that authenticates to the sink with a
 * client certificate (its audit webhook kubeconfig's client-certificate/client-key) rather than a
 * token behind an ingress. It serves POST /api/audit only, through the very function the route
 * uses (receiveAuditBatch: same body limit, same storage); everything else is 404. A client
 * certificate is asked for but not required at TLS, so a sender with the bearer token is served
 * too; one signed by another CA, or with a common name not allowed, is refused with 401.
 */

const PATH = "/api/audit";

function commonNamesOf(socket: TLSSocket): string[] {
  const cn = socket.getPeerCertificate().subject?.CN as string | string[] | undefined;
  if (cn === undefined) return [];
  return Array.isArray(cn) ? cn : [cn];
}

function peerOf(socket: TLSSocket): PeerCertificate {
  const cert = socket.getPeerCertificate();
  const presented = cert !== null && Object.keys(cert).length > 0;
  const error = socket.authorizationError as Error | string | null | undefined;
  return {
    presented,
    verified: presented && socket.authorized,
    ...(error ? { verifyError: typeof error === "string" ? error : error.message } : {}),
    commonNames: presented ? commonNamesOf(socket) : [],
  };
}

/** The request body as a web stream; a reader that stops early leaves the rest unread. */
function bodyOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  const chunks = req[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await chunks.next();
      if (done) controller.close();
      else controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
    },
  });
}

function toRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const init: RequestInit & { duplex: "half" } = {
    method: "POST",
    headers,
    body: bodyOf(req),
    duplex: "half",
  };
  return new Request(`https://audit-sink.invalid${PATH}`, init);
}

async function send(res: ServerResponse, response: Response, unreadBody: boolean): Promise<void> {
  const headers: Record<string, string> = Object.fromEntries(response.headers);
  // A refused request whose body was not read: the connection is not reused for another one.
  if (unreadBody) headers.connection = "close";
  const body = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, headers);
  res.end(body);
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  settings: AuditTlsSettings,
): Promise<void> {
  const pathname = new URL(req.url ?? "/", "https://audit-sink.invalid").pathname;
  if (req.method !== "POST" || pathname !== PATH) {
    await send(
      res,
      fail(auditSinkRoute, {
        status: 404,
        reason: "NotFound",
        message: `this listener serves POST ${PATH} only`,
      }),
      true,
    );
    return;
  }
  const auth = authorizeAuditClient(
    peerOf(req.socket as TLSSocket),
    req.headers.authorization ?? null,
    settings.clientNames,
  );
  const response = await receiveAuditBatch(toRequest(req), auth);
  await send(res, response, !req.readableEnded);
}

const g = globalThis as typeof globalThis & {
  portcullisAuditTls?: https.Server;
  portcullisAuditTlsFiles?: string[];
};

/** How often the certificate, key and client CA files are checked for a change. */
const RELOAD_POLL_MS = 2_000;

function log(message: string): void {
  console.error(`portcullis: ${message}`);
}

function readSetting(variable: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new Error(
      `${variable} (${file}) cannot be read: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}

/**
 * Serves the certificate, key and client CA the files hold now once they change (a rotation by
 * cert-manager or a Secret's update): new connections get them, open ones keep theirs. Files
 * caught half-written, or a certificate that does not match its key, keep the old ones in service
 * (one log line) until the next change.
 */
function reloadOnChange(server: https.Server, s: AuditTlsSettings): void {
  const files = [s.certFile, s.keyFile, s.clientCaFile];
  const reload = (now: Stats, before: Stats) => {
    if (now.mtimeMs === before.mtimeMs && now.size === before.size && now.ino === before.ino)
      return;
    try {
      server.setSecureContext({
        cert: readSetting("PORTCULLIS_AUDIT_TLS_CERT_FILE", s.certFile),
        key: readSetting("PORTCULLIS_AUDIT_TLS_KEY_FILE", s.keyFile),
        ca: readSetting("PORTCULLIS_AUDIT_CLIENT_CA_FILE", s.clientCaFile),
      });
      log(`the audit sink's TLS listener on ${s.listen} serves the certificate files as changed`);
    } catch (e) {
      log(
        `the audit sink's TLS listener keeps its certificates: the changed files cannot be used: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  };
  for (const f of files) watchFile(f, { interval: RELOAD_POLL_MS, persistent: false }, reload);
  g.portcullisAuditTlsFiles = files;
}

/** Closes the listener (tests; a server process keeps it until it exits). */
export async function stopAuditTlsListener(): Promise<void> {
  const server = g.portcullisAuditTls;
  if (!server) return;
  g.portcullisAuditTls = undefined;
  for (const f of g.portcullisAuditTlsFiles ?? []) unwatchFile(f);
  g.portcullisAuditTlsFiles = undefined;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * Starts the listener once per process when PORTCULLIS_AUDIT_TLS_LISTEN and the files it needs
 * are set; returns its address. Settings given only in part, a file that cannot be read, a
 * certificate that does not match its key or a port in use leave it unstarted with one log line
 * saying why (the rest of the dashboard serves on).
 */
export async function startAuditTlsListener(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<string | undefined> {
  if (g.portcullisAuditTls) {
    const a = g.portcullisAuditTls.address();
    return a && typeof a === "object" ? `${a.address}:${a.port}` : undefined;
  }
  let settings: AuditTlsSettings | undefined;
  let server: https.Server;
  try {
    settings = auditTlsSettings(env);
    if (!settings) return undefined;
    const s = settings;
    const options: https.ServerOptions = {
      cert: readSetting("PORTCULLIS_AUDIT_TLS_CERT_FILE", s.certFile),
      key: readSetting("PORTCULLIS_AUDIT_TLS_KEY_FILE", s.keyFile),
      ca: readSetting("PORTCULLIS_AUDIT_CLIENT_CA_FILE", s.clientCaFile),
      requestCert: true,
      rejectUnauthorized: false,
    };
    try {
      server = https.createServer(options, (req, res) => {
        serve(req, res, s).catch((e: unknown) => {
          if (!res.headersSent) res.writeHead(500, { connection: "close" });
          res.end(e instanceof Error ? e.message : String(e));
        });
      });
    } catch (e) {
      throw new Error(
        `PORTCULLIS_AUDIT_TLS_CERT_FILE, PORTCULLIS_AUDIT_TLS_KEY_FILE and PORTCULLIS_AUDIT_CLIENT_CA_FILE must hold PEM certificates and the certificate's key: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    server.on("tlsClientError", () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(s.port, s.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (e) {
    const where = settings ? ` on ${settings.listen}` : "";
    log(
      `the audit sink's TLS listener${where} is not started: ${e instanceof Error ? e.message : String(e)}`,
    );
    return undefined;
  }
  server.unref();
  g.portcullisAuditTls = server;
  reloadOnChange(server, settings);
  const a = server.address();
  const where = a && typeof a === "object" ? `${a.address}:${a.port}` : settings.listen;
  console.log(
    `portcullis: the audit sink listens on https://${where}${PATH} (client certificates from ${settings.clientCaFile}${settings.clientNames ? `, common names ${settings.clientNames.join(", ")}` : ""}; or the bearer token)`,
  );
  return where;
}
