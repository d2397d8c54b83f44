import "server-only";
import http2 from "node:http2";
import { gunzipSync } from "node:zlib";
import { parseListenAddress } from "@/lib/http/listen";
import { decodeWebhookSpans, OtlpDecodeError } from "@/lib/traces/otlp";
import { recordSpans, setReceiverListening } from "./store";

/**
 * The OTLP/gRPC trace receiver: kube-apiserver's exporter (k8s.io/component-base/tracing,
 * otlptracegrpc with WithInsecure) dials the configured endpoint over plaintext HTTP/2 and calls
 * TraceService/Export with one ExportTraceServiceRequest per batch. gRPC's unary framing is small
 * enough to serve with node:http2 directly: a 5-byte prefix (compressed flag, length) before the
 * message, the answer's status in trailers.
 *
 * The exporter sends no credentials, so the receiver cannot tell who sent a batch: it listens on
 * the address the operator configures (loopback in the local stack), keeps only webhook-call
 * spans, bounded per hook, and nothing it receives is trusted beyond that display.
 */

export const EXPORT_PATH = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
/** gRPC's default largest message. */
const MAX_MESSAGE = 4 * 1024 * 1024;

/** gRPC status codes used here. */
const GRPC = { ok: 0, invalidArgument: 3, resourceExhausted: 8, unimplemented: 12, internal: 13 };

function fail(stream: http2.ServerHttp2Stream, code: number, message: string): void {
  if (stream.headersSent || stream.destroyed || stream.closed) return;
  stream.respond(
    {
      ":status": 200,
      "content-type": "application/grpc",
      "grpc-status": String(code),
      "grpc-message": encodeURIComponent(message),
    },
    { endStream: true },
  );
}

/** The protobuf message of a unary gRPC request body (one length-prefixed message). */
function unframe(body: Buffer, encoding: string | undefined): Uint8Array {
  if (body.length < 5) throw new OtlpDecodeError("gRPC message prefix missing");
  const compressed = body[0] === 1;
  const length = body.readUInt32BE(1);
  if (length !== body.length - 5) throw new OtlpDecodeError("gRPC message length mismatch");
  const message = body.subarray(5);
  if (!compressed) return message;
  if (encoding !== "gzip") throw new OtlpDecodeError(`unsupported grpc-encoding ${encoding}`);
  return gunzipSync(message, { maxOutputLength: MAX_MESSAGE * 4 });
}

function handle(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
  if (headers[":method"] !== "POST" || headers[":path"] !== EXPORT_PATH) {
    stream.resume();
    fail(stream, GRPC.unimplemented, `no method ${String(headers[":path"])}`);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  stream.on("data", (chunk: Buffer) => {
    if (tooLarge) return;
    size += chunk.length;
    if (size > MAX_MESSAGE + 5) {
      tooLarge = true;
      chunks.length = 0;
      fail(stream, GRPC.resourceExhausted, `message larger than ${MAX_MESSAGE} bytes`);
      return;
    }
    chunks.push(chunk);
  });
  stream.on("end", () => {
    if (tooLarge) return;
    try {
      const message = unframe(
        Buffer.concat(chunks),
        headers["grpc-encoding"] as string | undefined,
      );
      const decoded = decodeWebhookSpans(message);
      recordSpans(
        decoded.spans,
        { droppedSpans: decoded.droppedSpans, instance: decoded.serviceInstance },
        decoded.requests,
      );
    } catch (e) {
      fail(
        stream,
        e instanceof OtlpDecodeError ? GRPC.invalidArgument : GRPC.internal,
        e instanceof Error ? e.message : String(e),
      );
      return;
    }
    if (stream.destroyed || stream.closed) return;
    stream.respond(
      { ":status": 200, "content-type": "application/grpc" },
      { waitForTrailers: true },
    );
    stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": String(GRPC.ok) }));
    // An empty ExportTraceServiceResponse: everything was accepted.
    stream.end(Buffer.from([0, 0, 0, 0, 0]));
  });
  stream.on("error", () => {});
}

/** `host:port` or `[v6]:port`. */
export function parseListen(listen: string): { host: string; port: number } {
  return parseListenAddress(listen, "PORTCULLIS_OTLP_LISTEN");
}

const g = globalThis as typeof globalThis & { portcullisOtlp?: http2.Http2Server };

/**
 * Starts the receiver once per process (later calls return the running one's address). A port
 * already in use (a second dashboard on the same stack) is reported, not fatal.
 */
export async function startTraceReceiver(listen: string): Promise<string | undefined> {
  if (g.portcullisOtlp) {
    const a = g.portcullisOtlp.address();
    return a && typeof a === "object" ? `${a.address}:${a.port}` : undefined;
  }
  const { host, port } = parseListen(listen);
  const server = http2.createServer({ maxSessionMemory: 32 });
  server.on("stream", handle);
  server.on("sessionError", () => {});
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (e) {
    const message = `the trace receiver could not listen on ${listen}: ${e instanceof Error ? e.message : String(e)}`;
    setReceiverListening(undefined, message);
    console.error(`portcullis: ${message}`);
    return undefined;
  }
  server.unref();
  g.portcullisOtlp = server;
  const a = server.address();
  const where = a && typeof a === "object" ? `${a.address}:${a.port}` : listen;
  setReceiverListening(where);
  return where;
}
