/**
 * A shared watch whose connection dies without closing recovers. A dashboard of its own reaches
 * the real apiserver through a TCP relay; once its live stream holds the collection, the relay
 * freezes the upstream watch's connection (nothing passes either way, nothing is closed: what a
 * crashed node or a dropped load-balancer entry leaves behind) and a configuration is created.
 * The apiserver ends every watch at its timeoutSeconds (5 s here), but its close never arrives,
 * so only the hub's own deadline — timeoutSeconds plus 10 s of silence — can notice: the stream
 * must then show the configuration, after that deadline (so it was the deadline, not a renewal
 * that slipped past the freeze) and well before the test's own limit. Without the deadline the
 * watch waited forever and the page kept stale objects without an error.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readStack, type StackInfo } from "../../cluster/harness/stack";
import { httpsRequest } from "../../cluster/https-json";
import { startRelayedDashboard, type DashboardProcess } from "../../test/dashboard-process";
import { policyHeaders } from "../../test/api-headers";
import type { TcpRelay } from "../../test/tcp-relay";
import { readEventStream } from "../../test/event-stream";

const HOOKS = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
const TIMEOUT_SECONDS = 5;
/** The hub's deadline: timeoutSeconds plus 10 s of silence (server/kube/watch-hub.ts). */
const DEADLINE_MS = TIMEOUT_SECONDS * 1000 + 10_000;

let stack: StackInfo;
let relay: TcpRelay;
let dashboard: DashboardProcess;
const name = `watch-silence-${Date.now().toString(36)}`;

beforeAll(async () => {
  stack = readStack();
  ({ dashboard, relay } = await startRelayedDashboard(stack, {
    PORTCULLIS_WATCH_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
  }));
}, 90_000);

afterAll(async () => {
  await httpsRequest(`${stack.server}${HOOKS}/${name}`, {
    method: "DELETE",
    ca: readFileSync(stack.caFile),
    token: stack.tokens.admin,
  });
  await dashboard?.kill("SIGTERM");
  await relay?.close();
});

it("a watch whose connection goes silent without closing is given up and the collection relisted", async () => {
  const abort = new AbortController();
  const res = await fetch(
    `${dashboard.url}api/watch?r=admissionregistration.k8s.io/v1/validatingwebhookconfigurations`,
    {
      headers: policyHeaders(stack.contexts.admin),
      signal: abort.signal,
    },
  );
  expect(res.status).toBe(200);
  const stream = readEventStream(res.body as ReadableStream<Uint8Array>);
  try {
    await expect.poll(() => stream.text.includes('"type":"SYNC"'), { timeout: 20_000 }).toBe(true);
    // The hub sends the snapshot once listed, then opens its watch on a connection of its own:
    // the newest one.
    await new Promise((r) => setTimeout(r, 300));
    expect(relay.freezeNewest()).toBe(true);
    const frozenAt = Date.now();

    const created = await httpsRequest(`${stack.server}${HOOKS}`, {
      method: "POST",
      ca: readFileSync(stack.caFile),
      token: stack.tokens.admin,
      body: { metadata: { name }, webhooks: [] },
    });
    expect(created.status).toBe(201);

    await expect
      .poll(() => stream.text.includes(`"name":"${name}"`), {
        timeout: DEADLINE_MS + 20_000,
        interval: 200,
      })
      .toBe(true);
    const after = Date.now() - frozenAt;
    console.info(`the configuration reached the stream ${after} ms after the freeze`);
    // The frozen watch carried nothing; the deadline (counted from its last byte, before the
    // freeze) ended it.
    expect(after).toBeGreaterThan(DEADLINE_MS - 3_000);
    // The stream told the browser why it resynced.
    expect(stream.text).toContain("nothing arrived on the watch");
  } finally {
    abort.abort();
    await stream.ended;
  }
}, 90_000);
