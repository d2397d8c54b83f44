// Plain Node (no Next, no "server-only"): shared by the dashboard server and the command line;
// eslint.config.mjs keeps it that way, and lib/ and components/ still cannot import server/.
import https from "node:https";
import http from "node:http";
import type { KubeConfig } from "@kubernetes/client-node";
import { kubeConfigFor } from "./config";
import { KubeApiError } from "@/lib/k8s/errors";
import { errorFromResponse, toKubeApiError } from "./errors";
import { dashboardError } from "@/lib/api/contract";

export interface KubeRequest {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path below the server URL, e.g. /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Defaults to application/json; PATCH callers name their patch type. */
  contentType?: string;
  /** Extra request headers (e.g. `Audit-ID`, which the apiserver adopts for the request). */
  headers?: Record<string, string>;
  /** The Accept header; defaults to application/json (e.g. a metadata-only list). */
  accept?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** A watch event as the apiserver streams it. */
export interface WatchEvent<T = unknown> {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: T;
}

const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * Keep-alive agents for plain (non-proxy) TLS connections, keyed by everything that shapes the
 * connection (server, CA, client certificate and key, verification). The kubeconfig library
 * builds a fresh agent for every request, which costs a TCP and TLS handshake each time (most of
 * a list request's latency); reusing one per identity keeps connections warm.
 */
const agents = new Map<string, https.Agent>();
const MAX_AGENTS = 64;

/**
 * What kubeConnections() counts, on globalThis: the server bundles this module more than once
 * (route handlers, pages, instrumentation), each copy with its own `agents`, and /api/health must
 * count them all.
 */
const g = globalThis as typeof globalThis & {
  portcullisKubePools?: Set<Map<string, https.Agent>>;
  portcullisKubePooled?: WeakSet<http.Agent>;
  portcullisKubeOwnSockets?: Set<object>;
};
(g.portcullisKubePools ??= new Set()).add(agents);
/** Every pooled agent (those dropped at MAX_AGENTS were destroyed with their connections). */
const pooled = (g.portcullisKubePooled ??= new WeakSet());
/** Sockets of requests on a connection of their own, open now. */
const ownSockets = (g.portcullisKubeOwnSockets ??= new Set());
/**
 * A kept-alive connection idle this long is closed: before the apiserver closes it (at 90 s) or
 * a load balancer in between drops it, so a request is seldom written on one that is gone.
 * (Requests set their own timeout while they use a connection.)
 */
export const IDLE_SOCKET_MS = 30_000;

function material(v: unknown): string {
  if (v === undefined || v === null) return "";
  if (Buffer.isBuffer(v)) return v.toString("base64");
  if (Array.isArray(v)) return v.map(material).join(",");
  return String(v);
}

function pooledAgent(server: string, opts: https.RequestOptions): https.Agent | undefined {
  const made = opts.agent;
  if (!(made instanceof https.Agent) || made.constructor !== https.Agent) return undefined;
  const o = made.options;
  const k = [
    server,
    material(o.ca),
    material(o.cert),
    material(o.key),
    material(o.pfx),
    material(o.passphrase),
    material(o.rejectUnauthorized),
    material(o.servername),
  ].join("\u0000");
  let agent = agents.get(k);
  if (!agent) {
    if (agents.size >= MAX_AGENTS) {
      for (const a of agents.values()) a.destroy();
      agents.clear();
    }
    agent = new https.Agent({ ...o, keepAlive: true, timeout: IDLE_SOCKET_MS });
    agents.set(k, agent);
    pooled.add(agent);
  }
  return agent;
}

/** Connections to apiservers this process holds now, by what holds them (see kubeConnections). */
export interface KubeConnections {
  /** Kept alive in a pool between requests; each closes after IDLE_SOCKET_MS unused. */
  idle: number;
  /** In a pool, carrying a request now (or connecting for one). */
  inUse: number;
  /**
   * A request's connection of its own, closed when the request ends: watches, and a GET sent
   * again after its kept-alive connection turned out to be gone.
   */
  own: number;
}

function count(lists: NodeJS.ReadOnlyDict<readonly unknown[]>): number {
  let n = 0;
  for (const list of Object.values(lists)) n += list?.length ?? 0;
  return n;
}

/**
 * The connections to apiservers the kube client holds now: what a count of the process's sockets
 * to an apiserver should come to (/api/health reports it).
 */
export function kubeConnections(): KubeConnections {
  let idle = 0;
  let inUse = 0;
  for (const pool of g.portcullisKubePools ?? [])
    for (const a of pool.values()) {
      idle += count(a.freeSockets);
      inUse += count(a.sockets);
    }
  return { idle, inUse, own: ownSockets.size };
}

/** Counts the connection of a request that is not on a pooled agent, until it closes. */
function trackOwnConnection(r: http.ClientRequest, agent: unknown): void {
  if (agent instanceof http.Agent && pooled.has(agent)) return;
  r.once("socket", (socket) => {
    if (ownSockets.has(socket)) return;
    ownSockets.add(socket);
    socket.once("close", () => ownSockets.delete(socket));
  });
}

/** Marks an error of a request written on a reused kept-alive connection before any answer. */
const REUSED_SOCKET = Symbol("reusedSocket");

/** A reset or closed connection, on a reused kept-alive connection, before any answer. */
function isReusedSocketReset(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return (
    typeof e === "object" &&
    e !== null &&
    REUSED_SOCKET in e &&
    (code === "ECONNRESET" || code === "EPIPE")
  );
}

function buildUrl(server: string, req: Pick<KubeRequest, "path" | "query">): URL {
  const url = new URL(req.path, server.endsWith("/") ? server : server + "/");
  // Keep any path prefix of the server URL (apiservers behind a proxy).
  const prefix = new URL(server).pathname.replace(/\/$/, "");
  url.pathname = prefix + req.path;
  for (const [k, v] of Object.entries(req.query ?? {})) {
    if (v !== undefined) url.searchParams.set(k, String(v));
  }
  return url;
}

/** The texts of `Warning: 299 - "text"` headers (RFC 7234 warn-text, quotes unescaped). */
function warningTexts(header: string | string[] | undefined): string[] {
  const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
  const out: string[] = [];
  for (const v of values) {
    const open = v.indexOf('"');
    const close = v.lastIndexOf('"');
    const text = open >= 0 && close > open ? v.slice(open + 1, close) : v;
    out.push(text.replace(/\\(.)/g, "$1").slice(0, 4096));
  }
  return out;
}

/**
 * A token read from a file (a kubeconfig's token file, shared mode's
 * PORTCULLIS_SERVICE_ACCOUNT_TOKEN_FILE) keeps the file's trailing newline, which the kubeconfig
 * library puts into the Authorization header as it is: Node then refuses to send the request at
 * all. client-go (kubectl) trims whitespace around a file's token; so does the dashboard.
 */
function trimBearerToken(headers: https.RequestOptions["headers"]): void {
  if (!headers || Array.isArray(headers)) return;
  const h = headers as Record<string, unknown>;
  for (const name of Object.keys(h)) {
    const value = h[name];
    if (name.toLowerCase() !== "authorization" || typeof value !== "string") continue;
    const m = /^Bearer\s+([\s\S]*)$/.exec(value);
    if (m) h[name] = `Bearer ${(m[1] ?? "").trim()}`;
  }
}

/**
 * The one door to a cluster: every apiserver call of the dashboard goes through a KubeClient,
 * built per request for the identity (kubeconfig context) the request acts as. Every failure
 * comes out as a KubeApiError carrying the apiserver's status, reason and message.
 */
export class KubeClient {
  readonly server: string;

  /**
   * `auth`, when given, supplies the identity's headers for each request (a signed-in user's
   * bearer token, or impersonation headers), resolved when the request is sent: a shared-mode
   * session is looked up then, and a request of an ended session fails with 401. It is told the
   * request's method (a write may need the session re-validated first).
   */
  constructor(
    readonly context: string,
    private readonly kc: KubeConfig,
    private readonly auth?: (req: { method: string }) => Promise<Record<string, string | string[]>>,
  ) {
    this.server = kc.getCurrentCluster()?.server ?? "";
    if (!this.server) {
      throw new KubeApiError(
        dashboardError({
          status: 503,
          reason: "NoCluster",
          message: `context "${context}" names no cluster with a server URL`,
        }),
      );
    }
  }

  private async options(req: KubeRequest): Promise<https.RequestOptions> {
    const asked: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers ?? {})) {
      const lower = k.toLowerCase();
      // With an `auth`, identity headers come from it only, never from what a caller passes on.
      if (this.auth && (lower === "authorization" || lower.startsWith("impersonate-"))) continue;
      asked[k] = v;
    }
    const opts: https.RequestOptions = {
      method: req.method ?? "GET",
      headers: { ...asked, Accept: req.accept ?? "application/json" },
      timeout: req.timeoutMs ?? 30_000,
      signal: req.signal,
    };
    await this.kc.applyToHTTPSOptions(opts);
    trimBearerToken(opts.headers);
    if (this.auth) {
      opts.headers = { ...opts.headers, ...(await this.auth({ method: opts.method ?? "GET" })) };
    }
    return opts;
  }

  private open(url: URL, opts: https.RequestOptions): http.ClientRequest {
    const r = url.protocol === "http:" ? http.request(url, opts) : https.request(url, opts);
    trackOwnConnection(r, opts.agent);
    return r;
  }

  /** Sends a request and returns the parsed JSON body; throws KubeApiError on any failure. */
  async request<T>(req: KubeRequest): Promise<T> {
    return (await this.requestWithWarnings<T>(req)).body;
  }

  /** Sends a request and returns the body text of a 2xx answer. */
  async requestText(req: KubeRequest): Promise<string> {
    return (await this.send(req)).text;
  }

  /**
   * Sends a request and returns the parsed body of a 2xx answer with the apiserver's warnings
   * (`Warning: 299 - "text"` headers, e.g. from admission webhooks and policies).
   */
  async requestWithWarnings<T>(req: KubeRequest): Promise<{ body: T; warnings: string[] }> {
    const { text, warnings } = await this.send(req);
    try {
      return { body: JSON.parse(text) as T, warnings };
    } catch {
      throw new KubeApiError({
        status: 502,
        reason: "BadResponse",
        message: `the apiserver's answer to ${req.method ?? "GET"} ${req.path} is not JSON`,
        cluster: this.server,
      });
    }
  }

  private async send(req: KubeRequest): Promise<{ text: string; warnings: string[] }> {
    const url = buildUrl(this.server, req);
    try {
      const opts = await this.options(req);
      // The agent the kubeconfig made for this request alone: a connection of its own.
      const ownAgent = opts.agent;
      if (url.protocol === "https:") opts.agent = pooledAgent(this.server, opts) ?? opts.agent;
      const payload =
        req.body === undefined
          ? undefined
          : typeof req.body === "string"
            ? req.body
            : JSON.stringify(req.body);
      if (payload !== undefined) {
        opts.headers = {
          ...opts.headers,
          "Content-Type": req.contentType ?? "application/json",
          "Content-Length": Buffer.byteLength(payload),
        };
      }
      const attempt = (o: https.RequestOptions) =>
        new Promise<{
          status: number;
          text: string;
          warnings: string[];
        }>((resolve, reject) => {
          const r = this.open(url, o);
          let answered = false;
          r.on("response", (res) => {
            answered = true;
            const chunks: Buffer[] = [];
            let size = 0;
            res.on("data", (c: Buffer) => {
              size += c.length;
              if (size > MAX_RESPONSE_BYTES) {
                r.destroy(new Error(`response larger than ${MAX_RESPONSE_BYTES} bytes`));
                return;
              }
              chunks.push(c);
            });
            res.on("end", () =>
              resolve({
                status: res.statusCode ?? 0,
                text: Buffer.concat(chunks).toString("utf8"),
                warnings: warningTexts(res.headersDistinct.warning),
              }),
            );
            res.on("error", reject);
          });
          r.on("timeout", () =>
            r.destroy(Object.assign(new Error("request timed out"), { code: "ETIMEDOUT" })),
          );
          r.on("error", (e) =>
            reject(answered || !r.reusedSocket ? e : Object.assign(e, { [REUSED_SOCKET]: true })),
          );
          if (payload !== undefined) r.write(payload);
          r.end();
        });
      let answer;
      try {
        answer = await attempt(opts);
      } catch (e) {
        // A kept-alive connection the server (or a load balancer) closed while it sat idle fails
        // the request written on it before any answer. A GET is sent again, on a connection of
        // its own; a write is not (the server may have acted on it before the reset).
        if (!isReusedSocketReset(e) || (req.method ?? "GET") !== "GET") throw e;
        answer = await attempt({ ...opts, agent: ownAgent });
      }
      const { status, text, warnings } = answer;
      if (status < 200 || status >= 300) throw errorFromResponse(status, text, this.server);
      return { text, warnings };
    } catch (e) {
      throw toKubeApiError(e, this.server);
    }
  }

  /**
   * Streams a watch: calls `onEvent` for each event until the server ends the stream, the signal
   * aborts, or an error occurs (thrown as KubeApiError). Resolves when the stream ends normally.
   * With `timeoutMs`, a stream on which nothing arrives for that long fails with ETIMEDOUT.
   */
  async watch<T>(
    req: Omit<KubeRequest, "method" | "body" | "contentType">,
    onEvent: (e: WatchEvent<T>) => void,
  ): Promise<void> {
    const url = buildUrl(this.server, { path: req.path, query: { ...req.query, watch: "true" } });
    try {
      const opts = await this.options({ ...req, timeoutMs: req.timeoutMs ?? 0 });
      if (!req.timeoutMs) opts.timeout = undefined;
      await new Promise<void>((resolve, reject) => {
        const r = this.open(url, opts);
        r.on("response", (res) => {
          if ((res.statusCode ?? 0) >= 300) {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () =>
              reject(
                errorFromResponse(
                  res.statusCode ?? 0,
                  Buffer.concat(chunks).toString("utf8"),
                  this.server,
                ),
              ),
            );
            return;
          }
          let buffer = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            buffer += chunk;
            let nl: number;
            while ((nl = buffer.indexOf("\n")) >= 0) {
              const line = buffer.slice(0, nl).trim();
              buffer = buffer.slice(nl + 1);
              if (!line) continue;
              try {
                onEvent(JSON.parse(line) as WatchEvent<T>);
              } catch (e) {
                r.destroy(e instanceof Error ? e : new Error(String(e)));
                return;
              }
            }
          });
          res.on("end", () => resolve());
          res.on("error", reject);
        });
        r.on("timeout", () =>
          r.destroy(
            Object.assign(
              new Error(
                `nothing arrived on the watch for ${Math.round(opts.timeout ?? 0) / 1000} s`,
              ),
              { code: "ETIMEDOUT" },
            ),
          ),
        );
        r.on("error", reject);
        r.end();
      });
    } catch (e) {
      throw toKubeApiError(e, this.server);
    }
  }
}

/** A client acting as the given kubeconfig context. */
export function kubeClientFor(context: string): KubeClient {
  return new KubeClient(context, kubeConfigFor(context));
}
