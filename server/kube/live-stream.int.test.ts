/**
 * A client that stops reading its event stream is dropped once the server holds more than the
 * configured bytes for it, so server memory does not grow with it; reconnecting starts again
 * from a SYNC snapshot. Runs its own dashboard with a small limit, against the real apiserver.
 */
import http from "node:http";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardEnv, readStack, type StackInfo } from "../../cluster/harness/stack";
import { httpsRequest } from "../../cluster/https-json";
import { startDashboard, type DashboardProcess } from "../../test/dashboard-process";

const HOOKS = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
const COUNT = 60;
let stack: StackInfo;
let dashboard: DashboardProcess;
const names: string[] = [];

beforeAll(async () => {
  stack = readStack();
  dashboard = await startDashboard({
    ...dashboardEnv(stack),
    PORTCULLIS_STREAM_MAX_QUEUED_BYTES: String(64 * 1024),
  });
});

afterAll(async () => {
  await Promise.all(
    names.map((n) =>
      httpsRequest(`${stack.server}${HOOKS}/${n}`, {
        method: "DELETE",
        ca: readFileSync(stack.caFile),
        token: stack.tokens.admin,
      }),
    ),
  );
  dashboard?.stop();
});

/** Opens the stream without reading it; resolves with the response once headers arrive. */
function openPaused(url: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      url,
      {
        headers: { "sec-fetch-site": "same-origin", "x-portcullis-context": stack.contexts.admin },
      },
      (res) => {
        res.pause();
        resolve(res);
      },
    );
    req.on("error", reject);
  });
}

describe("slow readers", () => {
  it("are dropped past the queue limit, and a reconnect resyncs", async () => {
    const url = `${dashboard.url}api/watch?r=admissionregistration.k8s.io/v1/validatingwebhookconfigurations`;
    const res = await openPaused(url);
    expect(res.statusCode).toBe(200);
    // ~12 MB of events: far more than the socket buffers and the 64 KiB the server may queue.
    const padding = "x".repeat(200 * 1024);
    for (let i = 0; i < COUNT; i++) {
      const name = `slow-reader-${Date.now()}-${i}`;
      names.push(name);
      const created = await httpsRequest(`${stack.server}${HOOKS}`, {
        method: "POST",
        ca: readFileSync(stack.caFile),
        token: stack.tokens.admin,
        body: { metadata: { name, annotations: { padding } }, webhooks: [] },
      });
      expect(created.status).toBe(201);
    }
    // Now read: the server ended the stream instead of queueing all of it.
    let received = 0;
    const ended = await new Promise<boolean>((resolve) => {
      res.on("data", (c: Buffer) => (received += c.length));
      res.on("end", () => resolve(true));
      res.on("close", () => resolve(true));
      setTimeout(() => resolve(false), 20_000);
      res.resume();
    });
    expect(ended).toBe(true);
    expect(received).toBeLessThan(COUNT * padding.length);

    // A new connection starts from a snapshot holding every object.
    const again = await fetch(url, {
      headers: { "sec-fetch-site": "same-origin", "x-portcullis-context": stack.contexts.admin },
    });
    const reader = again.body!.getReader();
    let text = "";
    while (!text.includes('"type":"SYNC"') || !text.includes("\n\n", text.indexOf('"SYNC"'))) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    for (const n of names.slice(-3)) expect(text).toContain(n);
  });
});
