/**
 * The receiver's gRPC framing over a real HTTP/2 connection (no cluster needed: the apiserver's
 * own export is proven in receiver.int.test.ts): answers, refusals, and the size bound.
 */
import http2 from "node:http2";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPORT_PATH, parseListen, startTraceReceiver } from "./receiver";
import { callsOf, receiverStatus } from "./store";

let where: string;
let client: http2.ClientHttp2Session;

beforeAll(async () => {
  where = (await startTraceReceiver("127.0.0.1:0")) as string;
  client = http2.connect(`http://${where}`);
});

afterAll(() => {
  client?.close();
});

function call(
  body: Buffer,
  path = EXPORT_PATH,
  headers: Record<string, string> = {},
): Promise<{ status: string | undefined; message?: string; data: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = client.request({
      ":method": "POST",
      ":path": path,
      "content-type": "application/grpc",
      te: "trailers",
      ...headers,
    });
    const chunks: Buffer[] = [];
    let status: string | undefined;
    let message: string | undefined;
    req.on("response", (h) => {
      if (h["grpc-status"] !== undefined) status = String(h["grpc-status"]);
      if (h["grpc-message"] !== undefined) message = decodeURIComponent(String(h["grpc-message"]));
    });
    req.on("trailers", (t) => {
      status = String(t["grpc-status"]);
    });
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve({ status, message, data: Buffer.concat(chunks) }));
    req.on("error", reject);
    req.end(body);
  });
}

const frame = (message: Buffer, compressed = false) => {
  const head = Buffer.alloc(5);
  head[0] = compressed ? 1 : 0;
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
};

/** ExportTraceServiceRequest with one validating-webhook span of 2 ms. */
function exportRequest(): Buffer {
  const str = (f: number, s: string) => {
    const b = Buffer.from(s);
    return Buffer.concat([Buffer.from([f * 8 + 2, b.length]), b]);
  };
  const msg = (f: number, body: Buffer) =>
    Buffer.concat([Buffer.from([f * 8 + 2, body.length]), body]);
  const fixed = (f: number, ns: bigint) => {
    const b = Buffer.alloc(9);
    b[0] = f * 8 + 1;
    b.writeBigUInt64LE(ns, 1);
    return b;
  };
  const kv = (k: string, v: string) => msg(9, Buffer.concat([str(1, k), msg(2, str(1, v))]));
  const span = Buffer.concat([
    str(5, "Call validating webhook"),
    fixed(7, 1_000_000_000n),
    fixed(8, 1_002_000_000n),
    kv("configuration", "unit-cfg"),
    kv("webhook", "unit.example.com"),
    kv("UID", "uid-1"),
  ]);
  return msg(1, msg(2, msg(2, span)));
}

describe("trace receiver", () => {
  it("parses its listen address", () => {
    expect(parseListen("127.0.0.1:4317")).toEqual({ host: "127.0.0.1", port: 4317 });
    expect(parseListen("[::1]:4317")).toEqual({ host: "::1", port: 4317 });
    expect(() => parseListen("4317")).toThrow("host:port");
  });

  it("accepts an export, plain or gzip, and keeps its webhook spans", async () => {
    const plain = await call(frame(exportRequest()));
    expect(plain.status).toBe("0");
    expect([...plain.data]).toEqual([0, 0, 0, 0, 0]);
    const zipped = await call(frame(gzipSync(exportRequest()), true), EXPORT_PATH, {
      "grpc-encoding": "gzip",
    });
    expect(zipped.status).toBe("0");
    const calls = callsOf("validating", "unit-cfg", "unit.example.com");
    expect(calls.map((c) => [c.uid, c.durationMs])).toEqual([
      ["uid-1", 2],
      ["uid-1", 2],
    ]);
    expect(receiverStatus()).toMatchObject({ listening: where, exports: 2, spans: 2 });
  });

  it("refuses malformed messages, unknown methods and oversized bodies", async () => {
    const bad = await call(frame(Buffer.from([0x0a, 0xff, 0x7f])));
    expect(bad.status).toBe("3");
    expect(bad.message).toContain("field longer than its message");
    expect((await call(Buffer.from([0, 0, 0, 0, 9]))).status).toBe("3");
    expect((await call(frame(Buffer.alloc(0)), "/other.Service/Method")).status).toBe("12");
    const huge = await call(frame(Buffer.alloc(4 * 1024 * 1024 + 1)));
    expect(huge.status).toBe("8");
  });

  it("leaves unanswered an export its sender reset after the last byte, and answers the next", async () => {
    // An apiserver killed mid-export: the stream's end and its reset arrive together, so the
    // stream is destroyed when its end is handled. Answering it would throw outside any request
    // (and end the dashboard's process); vitest fails the run on such an error. A session not
    // yet connected sends each request's frames, its reset included, in one piece.
    const body = frame(exportRequest());
    const fresh = http2.connect(`http://${where}`);
    fresh.on("error", () => undefined);
    const reset = Array.from(
      { length: 50 },
      () =>
        new Promise<void>((resolve) => {
          const req = fresh.request({
            ":method": "POST",
            ":path": EXPORT_PATH,
            "content-type": "application/grpc",
          });
          req.on("error", () => undefined);
          req.on("close", () => resolve());
          req.end(body);
          req.close(http2.constants.NGHTTP2_CANCEL);
        }),
    );
    await Promise.all(reset);
    fresh.close();
    // Each reset stream's end has been handled by now: the receiver takes the next export.
    await new Promise((r) => setImmediate(r));
    expect((await call(body)).status).toBe("0");
  });
});
