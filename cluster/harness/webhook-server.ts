/**
 * Real HTTPS admission webhook servers for tests and the demo. One server answers many hooks,
 * one URL path each (`/hooks/<name>`); tests program each hook's behaviour and read back every
 * AdmissionReview the apiserver sent, in arrival order.
 */
import https from "node:https";
import type { IncomingMessage } from "node:http";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { issueServingCert, caBundleOf } from "../certs";

/** The part of an admission.k8s.io AdmissionReview request a recorder keeps. */
export interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  requestKind?: { group: string; version: string; kind: string };
  requestResource?: { group: string; version: string; resource: string };
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  userInfo: { username?: string; uid?: string; groups?: string[] };
  object?: Record<string, unknown> | null;
  oldObject?: Record<string, unknown> | null;
  dryRun?: boolean;
  options?: Record<string, unknown> | null;
}

export interface RecordedCall {
  hook: string;
  apiVersion: string;
  request: AdmissionRequest;
  receivedAt: number;
  /** Position of this call among all calls the server received. */
  seq: number;
  /** The hook answered with a non-empty patch. */
  patched: boolean;
  /**
   * This server's own timing of the call, in ms: from the request's headers arriving to the
   * answer being handed to the socket (set then).
   */
  handledMs?: number;
}

export type JsonPatchOp = {
  op: "add" | "remove" | "replace" | "test" | "copy" | "move";
  path: string;
  value?: unknown;
  from?: string;
};

export type Behaviour =
  /** `auditAnnotations`: the apiserver files each under `<webhook name>/<key>`. */
  | { type: "allow"; warnings?: string[]; auditAnnotations?: Record<string, string> }
  /** `reason` is sent only when given; the apiserver reads it when the message is empty. */
  | { type: "deny"; message: string; code?: number; reason?: string }
  | { type: "patch"; patch: JsonPatchOp[] | ((req: AdmissionRequest) => JsonPatchOp[]) }
  | { type: "sleep"; seconds: number }
  | { type: "http-error"; status: number }
  /** Decides per request (a hook that denies some requests, one that flaps, one that is slow). */
  | { type: "choose"; choose: (req: AdmissionRequest) => Exclude<Behaviour, { type: "choose" }> };

export interface WebhookServer {
  port: number;
  /** PEM CA bundle (base64) for clientConfig.caBundle. */
  caBundle: string;
  /** The url clientConfig for hook `name`. */
  url(name: string): string;
  /**
   * A webhook configuration's entry `name` calling hook `hook` here: sideEffects None, v1
   * reviews, a 5 s timeout and failurePolicy Fail, then whatever `spec` sets.
   */
  webhook(name: string, hook: string, spec?: Record<string, unknown>): Record<string, unknown>;
  program(name: string, behaviour: Behaviour): void;
  /** Every call received so far, in arrival order (optionally only for one hook). */
  calls(hook?: string): RecordedCall[];
  clearCalls(): void;
  /** Sequence number the next recorded call will get. */
  nextSeq(): number;
  close(): Promise<void>;
}

const MAX_BODY = 3 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error("body too large"));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/**
 * Starts a webhook server whose serving certificate is signed by the given CA; `certOptions` change the
 * names it carries (default 127.0.0.1 and localhost) or its signature digest.
 */
export async function startWebhookServer(
  ca: { certFile: string; keyFile: string },
  certOptions: { hosts?: string[]; digest?: "sha256" | "sha1" } = {},
): Promise<WebhookServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "portcullis-webhook-"));
  const cert = issueServingCert(dir, ca, "webhook", certOptions.hosts, certOptions.digest);
  const behaviours = new Map<string, Behaviour>();
  const recorded: RecordedCall[] = [];
  let seq = 0;
  const pending = new Set<NodeJS.Timeout>();

  const server = https.createServer(
    {
      cert: readFileSync(cert.certFile),
      key: readFileSync(cert.keyFile),
      // OpenSSL's default security level refuses to even serve a SHA-1 signed certificate.
      ...(certOptions.digest === "sha1" ? { ciphers: "DEFAULT:@SECLEVEL=0" } : {}),
    },
    (req, res) => {
      const started = performance.now();
      let call: RecordedCall | undefined;
      // Taken when the answer is written, not on "finish": a busy event loop delays that event.
      const answered = () => {
        if (call) call.handledMs = performance.now() - started;
      };
      void (async () => {
        const match = /^\/hooks\/([^/?]+)/.exec(req.url ?? "");
        if (req.method !== "POST" || !match?.[1]) {
          res.writeHead(404).end();
          return;
        }
        const hook = decodeURIComponent(match[1]);
        let review: { apiVersion?: string; request?: AdmissionRequest };
        try {
          review = JSON.parse(await readBody(req)) as typeof review;
        } catch {
          res.writeHead(400).end();
          return;
        }
        const request = review.request;
        if (!request) {
          res.writeHead(400).end();
          return;
        }
        call = {
          hook,
          apiVersion: review.apiVersion ?? "",
          request,
          receivedAt: Date.now(),
          seq: seq++,
          patched: false,
        };
        recorded.push(call);
        const programmed = behaviours.get(hook) ?? { type: "allow" };
        const behaviour = programmed.type === "choose" ? programmed.choose(request) : programmed;
        if (behaviour.type === "sleep") {
          await new Promise<void>((resolve) => {
            const t = setTimeout(() => {
              pending.delete(t);
              resolve();
            }, behaviour.seconds * 1000);
            pending.add(t);
          });
        }
        if (behaviour.type === "http-error") {
          answered();
          res
            .writeHead(behaviour.status, { "content-type": "text/plain" })
            .end("programmed failure\n");
          return;
        }
        const response: Record<string, unknown> = {
          uid: request.uid,
          allowed: behaviour.type !== "deny",
        };
        if (behaviour.type === "deny")
          response.status = {
            code: behaviour.code ?? 403,
            message: behaviour.message,
            ...(behaviour.reason !== undefined ? { reason: behaviour.reason } : {}),
          };
        if (behaviour.type === "allow" && behaviour.warnings)
          response.warnings = behaviour.warnings;
        if (behaviour.type === "allow" && behaviour.auditAnnotations)
          response.auditAnnotations = behaviour.auditAnnotations;
        if (behaviour.type === "patch") {
          const ops =
            typeof behaviour.patch === "function" ? behaviour.patch(request) : behaviour.patch;
          if (ops.length > 0) {
            call.patched = true;
            response.patchType = "JSONPatch";
            response.patch = Buffer.from(JSON.stringify(ops)).toString("base64");
          }
        }
        const body = JSON.stringify({
          apiVersion: review.apiVersion ?? "admission.k8s.io/v1",
          kind: "AdmissionReview",
          response,
        });
        answered();
        if (!res.destroyed) res.writeHead(200, { "content-type": "application/json" }).end(body);
      })().catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const addr = server.address();
  if (addr === null || typeof addr === "string") throw new Error("unexpected listen address");
  const port = addr.port;
  const caBundle = caBundleOf(ca.certFile);
  const url = (name: string) => `https://127.0.0.1:${port}/hooks/${encodeURIComponent(name)}`;
  return {
    port,
    caBundle,
    url,
    webhook: (name, hook, spec = {}) => ({
      name,
      clientConfig: { url: url(hook), caBundle },
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      timeoutSeconds: 5,
      failurePolicy: "Fail",
      ...spec,
    }),
    program: (name, behaviour) => behaviours.set(name, behaviour),
    calls: (hook) => (hook === undefined ? [...recorded] : recorded.filter((c) => c.hook === hook)),
    nextSeq: () => seq,
    clearCalls: () => {
      recorded.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of pending) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}
