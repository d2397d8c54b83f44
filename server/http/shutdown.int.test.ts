/**
 * A dashboard asked to stop stops, even while browsers hold its live streams open: a second
 * dashboard process on the stack's control plane (started as `npm start` starts it, with its own
 * data directory and no trace receiver) gets a resource stream and a decision feed opened, then
 * SIGTERM (what Kubernetes and container runtimes send) or SIGINT (Ctrl-C in a terminal). Both
 * streams must end and the process exit with Next's code for that signal, well within
 * Kubernetes' default 30 s grace period. Before open streams were ended on these signals, the
 * process was still running 30 s after SIGTERM.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { Agent, get as httpGet } from "node:http";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freePorts } from "../../cluster/ports";
import { dashboardEnv, readStack, spawnDashboard, waitForHttp } from "../../cluster/harness/stack";
import { policyHeaders } from "../../test/api-headers";
import { readEventStream } from "../../test/event-stream";

/** How long the process may take to exit once signalled. */
const EXIT_WITHIN_MS = 10_000;

function exited(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once("exit", (code, signal) => resolve({ code, signal }));
  });
}

/** A dashboard process of its own (data directory too) on the stack's control plane. */
async function ownDashboard() {
  const stack = readStack();
  const [port] = (await freePorts(1)) as [number];
  const env = dashboardEnv(stack);
  delete env.PORTCULLIS_OTLP_LISTEN; // the stack's dashboard holds that address
  env.PORTCULLIS_DATA_DIR = path.join(mkdtempSync(path.join(stack.dir, "shutdown-")), "data");
  const child = spawnDashboard(env, port);
  return { stack, port, child, gone: exited(child) };
}

describe.each([
  ["SIGTERM", 143],
  ["SIGINT", 130],
] as const)("on %s", (signal, exitCode) => {
  it("ends the open live streams and exits", async () => {
    const { stack, port, child, gone } = await ownDashboard();
    try {
      const base = `http://127.0.0.1:${port}`;
      await waitForHttp(`${base}/api/health`, child, 60_000);
      const headers = policyHeaders(stack.contexts.admin);
      const watch = await fetch(
        `${base}/api/watch?r=admissionregistration.k8s.io/v1/validatingwebhookconfigurations`,
        { headers },
      );
      const feed = await fetch(`${base}/api/decisions/stream`, { headers });
      expect(watch.status).toBe(200);
      expect(feed.status).toBe(200);
      const watchText = readEventStream(watch.body as ReadableStream<Uint8Array>).ended;
      const feedText = readEventStream(feed.body as ReadableStream<Uint8Array>).ended;
      // Both are open and serving before the signal.
      await expect.poll(() => health(base), { timeout: 10_000 }).toBe(2);

      const signalled = Date.now();
      child.kill(signal);
      const result = await Promise.race([
        gone,
        new Promise<undefined>((r) => setTimeout(() => r(undefined), EXIT_WITHIN_MS)),
      ]);
      expect(result, `still running ${EXIT_WITHIN_MS / 1000} s after ${signal}`).toEqual({
        code: exitCode,
        signal: null,
      });
      console.info(`dashboard exited ${Date.now() - signalled} ms after ${signal}`);
      // Each stream ended (rather than broke off) after its greeting.
      expect(await watchText).toContain('"type":"SYNC"');
      expect(await feedText).toContain(": connected");
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await gone;
    }
  }, 90_000);
});

describe("a client that asks again at once on its kept-alive connection", () => {
  it("does not hold the stop: what it asks once stopping has begun is refused with 503 and the connection closed", async () => {
    const { stack, port, child, gone } = await ownDashboard();
    // One connection, kept alive: as a browser's, the stream's connection carries what follows.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const headers = policyHeaders(stack.contexts.admin);
    const get = (p: string) =>
      new Promise<{ status: number; body: string; connection?: string }>((resolve, reject) => {
        const req = httpGet({ host: "127.0.0.1", port, path: p, agent, headers }, (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => (body += c));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }),
          );
          res.on("error", reject);
        });
        req.on("error", reject);
      });
    try {
      const base = `http://127.0.0.1:${port}`;
      await waitForHttp(`${base}/api/health`, child, 60_000);
      const stream = get("/api/decisions/stream");
      await expect.poll(() => health(base), { timeout: 10_000 }).toBe(1);
      child.kill("SIGTERM");
      // The stream ends with the signal; its connection then carries request after request, as
      // an EventSource reconnecting and a page reading again do, until the server answers no more.
      expect((await stream).status).toBe(200);
      const after: Array<number | string> = [];
      let closed = false;
      void gone.then(() => (closed = true));
      while (!closed && after.length < 200) {
        const r = await get("/api/break-glass").catch(
          (e: NodeJS.ErrnoException) => e.code ?? "error",
        );
        after.push(typeof r === "object" ? r.status : r);
        if (typeof r === "object" && r.status === 503) {
          expect(r.connection).toBe("close");
          expect(r.body).toContain("stopping");
        }
      }
      const result = await Promise.race([
        gone,
        new Promise<undefined>((r) => setTimeout(() => r(undefined), EXIT_WITHIN_MS)),
      ]);
      expect(result, `still running after SIGTERM; answers after it: ${after.join()}`).toEqual({
        code: 143,
        signal: null,
      });
      // Nothing after the signal was served as if the dashboard were not stopping.
      expect(after.filter((a) => a === 200)).toEqual([]);
    } finally {
      agent.destroy();
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await gone;
    }
  }, 90_000);
});

/** The event streams the dashboard reports open. */
async function health(base: string): Promise<number> {
  const res = await fetch(`${base}/api/health`);
  return ((await res.json()) as { liveStreams?: number }).liveStreams ?? -1;
}
