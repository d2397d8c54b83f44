/** A minimal HTTPS JSON client for the launcher and harness (node:https with a pinned CA). */
import https from "node:https";
import { gunzipSync } from "node:zlib";
import type { IncomingHttpHeaders } from "node:http";

export interface HttpsJsonResponse {
  status: number;
  body: string;
  headers: IncomingHttpHeaders;
}

/** Sends one request and resolves with status and body text; rejects only on transport errors. */
export function httpsRequest(
  url: string,
  opts: {
    method?: string;
    token?: string;
    ca: string | Buffer;
    body?: unknown;
    /** Defaults to application/json; PATCH needs a patch type (application/merge-patch+json). */
    contentType?: string;
    timeoutMs?: number;
    /** Ask for a gzip-compressed answer (decompressed here), as browsers and undici do. */
    gzip?: boolean;
    /** More request headers (e.g. Impersonate-User). */
    headers?: Record<string, string>;
  },
): Promise<HttpsJsonResponse> {
  return new Promise((resolve, reject) => {
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = https.request(
      url,
      {
        method: opts.method ?? "GET",
        ca: opts.ca,
        headers: {
          Accept: "application/json",
          ...(opts.gzip ? { "Accept-Encoding": "gzip" } : {}),
          ...(opts.token ? { Authorization: `Bearer ${opts.token}` } : {}),
          ...opts.headers,
          ...(payload
            ? {
                "Content-Type": opts.contentType ?? "application/json",
                "Content-Length": Buffer.byteLength(payload),
              }
            : {}),
        },
        timeout: opts.timeoutMs ?? 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          try {
            const raw = Buffer.concat(chunks);
            const body = res.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
            resolve({
              status: res.statusCode ?? 0,
              body: body.toString("utf8"),
              headers: res.headers,
            });
          } catch (e) {
            reject(e instanceof Error ? e : new Error(String(e)));
          }
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`request to ${url} timed out`)));
    req.on("error", reject);
    if (payload) req.write(payload);
    req.end();
  });
}
