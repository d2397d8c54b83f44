/**
 * Takes the apiserver's last spans while it stops, once the dashboard (their receiver) is gone:
 * an OTLP/gRPC endpoint (plaintext HTTP/2, as the apiserver's exporter dials it) that answers
 * every export with an empty response and keeps nothing. Without it the apiserver's exit waited
 * for its final export to time out (10 s), past the control plane's grace, and was killed.
 */
import http2 from "node:http2";

export interface TraceSink {
  close(): Promise<void>;
}

/** Listens on host:port; resolves undefined when the address is taken (a receiver still runs). */
export async function startTraceSink(host: string, port: number): Promise<TraceSink | undefined> {
  const server = http2.createServer();
  server.on("stream", (stream) => {
    stream.on("error", () => undefined);
    stream.resume();
    stream.on("end", () => {
      // An apiserver killed mid-export (the soak's kill -9) resets the stream under us: there
      // is no one left to answer, and respond() would throw in the harness's process.
      if (stream.destroyed || stream.closed) return;
      stream.respond(
        { ":status": 200, "content-type": "application/grpc" },
        { waitForTrailers: true },
      );
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
      // One gRPC message: uncompressed, zero bytes long (an empty ExportTraceServiceResponse).
      stream.end(Buffer.alloc(5));
    });
  });
  server.on("sessionError", () => undefined);
  const listening = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, host, () => resolve(true));
  });
  if (!listening) return undefined;
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (s) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
}
