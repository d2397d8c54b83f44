#!/usr/bin/env node
/**
 * `npm start`: serves the production build (or, with --dev, the development server). In local
 * mode (the default) on a loopback address only: the dashboard acts with the kubeconfig's
 * credentials and has no sign-in of its own, so listening on any other address would hand those
 * credentials to the network: that is refused. In shared mode (PORTCULLIS_MODE=shared) every
 * admin signs in and acts as themselves, so any address is allowed (e.g. 0.0.0.0 in a pod). PORT picks the port (default 3000); PORTCULLIS_HOST a loopback address
 * (default 127.0.0.1). The port is passed on as PORTCULLIS_PORT, so the request policy allows the
 * loopback host names on that port only.
 *
 * It serves Next's request handler behind an HTTP server of its own, the front door: Next reads
 * (and copies) a request's whole body before proxy.ts or a route runs, so a refusal there comes
 * after the cost. The door asks server/http/front-door.ts (registered on globalThis by
 * instrumentation.ts when the server starts) about every request that carries a body, before
 * reading a byte of it: a refused one is answered unread, an admitted one is cut off where it
 * passes its route's limit, and a large one waits, its socket unread, until the bodies being read
 * leave room. Requests without a body (health, pages, streams) go straight to Next.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { isIP, Socket } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dev = process.argv.includes("--dev");
const mode = process.env.PORTCULLIS_MODE || "local";
const host = process.env.PORTCULLIS_HOST || "127.0.0.1";
const port = process.env.PORT || "3000";

/** True for names and addresses that only this machine can reach. */
function isLoopback(h) {
  if (h === "localhost" || h === "::1" || h === "[::1]") return true;
  return isIP(h) === 4 && h.startsWith("127.");
}

if (!/^[0-9]{1,5}$/.test(port) || Number(port) > 65535) {
  process.stderr.write(`portcullis: PORT must be a port number, not "${port}"\n`);
  process.exit(2);
}
if (mode !== "local" && mode !== "shared") {
  process.stderr.write(`portcullis: PORTCULLIS_MODE must be "local" or "shared"\n`);
  process.exit(2);
}
if (mode === "shared") {
  const file = process.env.PORTCULLIS_SESSION_SECRET_FILE;
  let bytes = 0;
  try {
    bytes = file ? Buffer.byteLength(readFileSync(file, "utf8").trim()) : 0;
  } catch {
    bytes = 0;
  }
  if (bytes < 32) {
    process.stderr.write(
      "portcullis: shared mode needs PORTCULLIS_SESSION_SECRET_FILE, a readable file of at least 32 random bytes that signs session cookies and encrypts tokens at rest\n",
    );
    process.exit(2);
  }
}
if (mode === "local" && !isLoopback(host)) {
  process.stderr.write(
    `portcullis: refusing to listen on ${host}: the dashboard acts with your kubeconfig's credentials ` +
      "and has no sign-in of its own, so it listens on loopback addresses only " +
      "(PORTCULLIS_HOST=127.0.0.1, ::1 or localhost). Reach it from elsewhere through an SSH tunnel.\n",
  );
  process.exit(2);
}

process.env.NEXT_TELEMETRY_DISABLED ??= "1";
process.env.PORTCULLIS_PORT = port;
// As Next's command line has it.
process.env.NODE_ENV ||= dev ? "development" : "production";
process.env.NEXT_RUNTIME = "nodejs";
const hostname = host.replace(/^\[|\]$/g, "");

// The container image holds Next's standalone output: server.js stands beside scripts/, with the
// build's configuration (the image carries no next.config.ts) in .next/required-server-files.json.
if (!dev && existsSync(path.join(root, "server.js"))) {
  process.env.NODE_ENV = "production";
  process.chdir(root);
  const files = JSON.parse(
    readFileSync(path.join(root, ".next", "required-server-files.json"), "utf8"),
  );
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(files.config);
}

const FRONT_DOOR = Symbol.for("portcullis.front-door");
/** The door server/http/front-door.ts registered (see FrontDoor there), once the server started. */
const door = () => globalThis[FRONT_DOOR];

const require = createRequire(path.join(root, "package.json"));
const next = require("next");
const server = createServer();
const app = next({ dev, dir: root, hostname, port: Number(port), httpServer: server });
const handle = app.getRequestHandler();

/** Hands a request to Next (as Next's own server does: a failure is a bare 500). */
async function toNext(req, res) {
  try {
    await handle(req, res);
  } catch (err) {
    console.error(`portcullis: failed to handle ${req.method} ${req.url}:`, err);
    if (!res.headersSent) {
      res.statusCode = 500;
      res.end("Internal Server Error");
    } else {
      res.destroy();
    }
  }
}

/**
 * A connection closed on a body left unread ends as Go's net/http ends one: the answer, the write
 * side shut (FIN), then the socket kept, still unread, for LINGER_MS before it is closed. Closing
 * at once, with the body's bytes still arriving, resets the connection (RST), and a client that
 * is still sending can lose the answer already sent to it: it sees "connection reset" (fetch:
 * "fetch failed") instead of the 413 or 401. Nothing more is read meanwhile; past
 * LINGERING_AT_ONCE such connections, the next ones close at once.
 */
const LINGER_MS = 2000;
const LINGERING_AT_ONCE = 64;
let lingering = 0;

/** Shuts the socket's write side now and closes it LINGER_MS later, reading nothing more. */
function lingerThenClose(socket) {
  if (socket.destroyed) return;
  if (lingering >= LINGERING_AT_ONCE) return void socket.destroy();
  lingering++;
  socket.pause();
  // Node's HTTP server resumes the socket to drain a request nobody read: not this one.
  socket.resume = () => socket;
  if (socket.writable) socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once("close", () => {
    clearTimeout(timer);
    lingering--;
  });
}

/** Makes the HTTP server's close after this response (Connection: close) a lingering one. */
function closeLingering(res) {
  const socket = res.socket;
  if (socket && socket.destroySoon === Socket.prototype.destroySoon) {
    socket.destroySoon = () => lingerThenClose(socket);
  }
}

/** Writes an answer the door made; `close` ends the connection instead of draining the body. */
function answer(res, a, close) {
  const body = Buffer.from(a.body);
  if (close) closeLingering(res);
  res.writeHead(a.status, {
    ...a.headers,
    ...(close ? { connection: "close" } : {}),
    "content-length": String(body.length),
  });
  res.end(body);
}

/**
 * Ends a body sent without a length where it passes `limit`: the route reads `limit` + 1 bytes
 * and refuses them (413; every route reads with at most its requestBodyLimit), what follows is
 * never read (the socket stops reading), and the connection closes (lingering) with the answer.
 */
function limitBody(req, res, limit) {
  let seen = 0;
  let cut = false;
  const push = req.push;
  req.push = function (chunk, encoding) {
    if (cut) return false;
    if (!chunk) return push.call(this, chunk, encoding);
    seen += chunk.length;
    if (seen <= limit) return push.call(this, chunk, encoding);
    cut = true;
    if (!res.headersSent) {
      res.setHeader("connection", "close");
      closeLingering(res);
    } else {
      const socket = req.socket;
      res.once("finish", () => lingerThenClose(socket));
    }
    push.call(this, chunk.subarray(0, chunk.length - (seen - limit - 1)));
    push.call(this, null);
    return false;
  };
}

// Large bodies being read, and those waiting for a place (FIFO).
let reading = 0;
const waiting = [];

/** Runs `go` once a large body may be read; the place is given back when the body is read. */
function whenRoomForLargeBody(d, req, res, go) {
  const start = () => {
    reading++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      reading--;
      while (reading < d.largeBodiesAtOnce && waiting.length > 0) waiting.shift()();
    };
    req.once("end", release);
    req.once("close", release);
    res.once("close", release);
    go();
  };
  if (reading < d.largeBodiesAtOnce) return start();
  if (waiting.length >= d.largeBodiesWaiting) return answer(res, d.busy(), true);
  const entry = () => (req.destroyed ? undefined : start());
  waiting.push(entry);
  req.once("close", () => {
    const i = waiting.indexOf(entry);
    if (i !== -1) waiting.splice(i, 1);
  });
}

/** The front door: a request with a body is decided on before Next reads any of it. */
async function frontDoor(req, res, expectsContinue) {
  if (stopping) return refuseWhileStopping(res);
  const d = door();
  const head = {
    method: req.method ?? "GET",
    url: req.url ?? "/",
    headers: req.headers,
    remoteAddress: req.socket.remoteAddress,
  };
  if (!d) {
    // Not registered: the server did not start as it should (instrumentation.ts). No body is
    // read unchecked.
    if (!expectsContinue && !(req.headers["transfer-encoding"] || req.headers["content-length"])) {
      return toNext(req, res);
    }
    closeLingering(res);
    res.writeHead(503, { "content-type": "text/plain; charset=utf-8", connection: "close" });
    return void res.end("the dashboard's front door is not ready\n");
  }
  if (!d.carriesBody(head)) {
    if (expectsContinue) res.writeContinue();
    return toNext(req, res);
  }
  let verdict;
  try {
    verdict = await d.admit(head);
  } catch (err) {
    console.error(`portcullis: the front door failed on ${req.method} ${req.url}:`, err);
    closeLingering(res);
    res.writeHead(500, { "content-type": "text/plain; charset=utf-8", connection: "close" });
    return void res.end("Internal Server Error\n");
  }
  // A client that waits for 100 Continue is not sent one: its connection ends with the answer,
  // whether or not it then sends the body.
  if (!verdict.admit) return answer(res, verdict.answer, verdict.close || expectsContinue);
  limitBody(req, res, verdict.limit);
  const go = () => {
    if (expectsContinue) res.writeContinue();
    void toNext(req, res);
  };
  if (verdict.large) whenRoomForLargeBody(d, req, res, go);
  else go();
}

server.on("request", (req, res) => void frontDoor(req, res, false));
// A client that asks before sending its body (Expect: 100-continue) is refused before it sends.
server.on("checkContinue", (req, res) => void frontDoor(req, res, true));
const keepAlive = Number.parseInt(process.env.KEEP_ALIVE_TIMEOUT ?? "", 10);
if (Number.isFinite(keepAlive) && keepAlive >= 0) server.keepAliveTimeout = keepAlive;

// Stopping as Next's own server does: no new connections, the requests in flight finished (the
// open event streams are ended by instrumentation.ts on the same signals), then exit 128+signal.
let stopping = false;

/**
 * A request that arrives once stopping has begun, on a connection kept alive from before (closing
 * the server closes only the connections idle at that moment; a live stream's connection is
 * not): answered 503 and the connection closed with it. Served instead, a browser whose ended
 * streams reconnect at once on the same connections kept the server from ever closing.
 */
function refuseWhileStopping(res) {
  res.writeHead(503, {
    "content-type": "text/plain; charset=utf-8",
    connection: "close",
    "retry-after": "1",
  });
  res.end("the dashboard is stopping\n");
}
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
]) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.close(() => {
      void app
        .close()
        .catch((err) => console.error(err))
        .finally(() => process.exit(code));
    });
    if (dev) server.closeAllConnections();
  });
}

server.on("error", (err) => {
  console.error("portcullis: the server failed:", err);
  process.exit(1);
});
await app.prepare();
server.listen(Number(port), hostname, () => {
  process.stdout.write(
    `portcullis: ${mode} mode, ${dev ? "development server" : "production build"} on http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}\n`,
  );
});
